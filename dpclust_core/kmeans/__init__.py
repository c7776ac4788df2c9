"""Differentially private k-means (thesis chapter 4): DPLloyd, grid synopses (UGkM, EUGkM, MkM), the hybrid,
sample-and-aggregate (GkM) and PrivGene (PGkM), and the private choice of k."""
