# Negative tests: what a faulty or foreign region, or a faulty peer, must not get past.
ivc_unit_test(neg_region_attach neg/region_attach.c)
ivc_unit_test(neg_corrupt neg/corrupt.c)
