"""Lean 4 source read without Lean: a lexer exact enough to tell code from comments and literals, and the
command structure of a file. Generic: TaoBench integrity checks, MathAtlas statement checks and the Kimina
server double all read Lean through here."""
