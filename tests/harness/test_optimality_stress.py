"""The optimality stress benchmark, reduced: both backends on a few
instances of every family at its sizes, never a disagreement."""

from bench.optimality_stress import FAMILIES, disagreement, solve_twice, table


def test_backends_never_disagree_on_stress_instances():
    rows = [solve_twice((family, seed, 5.0)) for family in FAMILIES for seed in range(2)]
    assert [row["name"] for row in rows if disagreement(row)] == []
    proven = sum(row[b]["status"] in ("optimal", "infeasible") or row[b].get("proof") == ["certificate"]
                 for row in rows for b in ("cpsat", "milp"))
    assert proven >= len(rows)  # most answers are proven, so the comparison means something
    assert table(rows).count("\n") == len(FAMILIES) + 1


def test_a_disagreement_is_seen():
    """Two optima that differ, and an optimum beyond the other's bound."""
    row = {"family": "mosp", "cpsat": {"status": "optimal", "value": "28", "bound": "28"},
           "milp": {"status": "optimal", "value": "29", "bound": "29"}}
    assert disagreement(row).startswith("two optima")
    row["milp"] = {"status": "feasible", "value": "30", "bound": "29"}
    assert disagreement(row).startswith("optimum 28 beyond")
    row["family"] = "knapsack"
    assert disagreement(row) is None
    yes = {"status": "feasible", "value": "1", "bound": "1", "proof": ["certificate"]}
    no = {"status": "infeasible", "value": "0", "bound": "0", "proof": ["cpsat", "milp"]}
    assert disagreement({"family": "three_partition", "cpsat": yes, "milp": no}).startswith("one proves infeasible")
