"""The exact machinery every family's solver shares: the certificate of a
refutation (``certificate``: a second, independent method confirms it), the
bisection of max-of-ratios objectives (``ratio``), what a backend model
returns (``outcome``), warm-start hints (``hints``), machine symmetry
(``machines``) and the time limits and worker counts (``settings``)."""
