"""The paper experiments as TOML files, installed as ``schedbench.experiments``
so that ``schedbench run`` finds them without a checkout."""
