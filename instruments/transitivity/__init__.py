"""The transitivity instrument: pairwise choices between moral-principle violations, tested against WUM, HCM and
G-RUM (the mathematics is in `scoring/transitivity/`)."""
