"""TaoBench: Lean statement extraction, offline integrity checks, proof submissions and pass@k scoring."""
