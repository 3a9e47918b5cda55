"""The Lean lexer and command structure (``lemmata.lean``): tokens, comments, unterminated input, namespaces."""

from __future__ import annotations

import pytest

from lemmata.lean.lexer import LexError, lex


@pytest.mark.parametrize(
    ("source", "texts"),
    [
        ('"a -- b /- c" x', ['"a -- b /- c"', "x"]),
        ("/- a /- b -/ sorry -/ y", ["y"]),
        ("/-- doc sorry -/ theorem", ["theorem"]),
        ("'\"' sorry", ["'\"'", "sorry"]),
        ("h' a'.1 «sorry» x₁", ["h'", "a'.1", "«sorry»", "x₁"]),
        ('r#"say "sorry" here"# z', ['r#"say "sorry" here"#', "z"]),
        ('s!"v {sorry} w" k', ['s!', '"v {sorry} w"', "sorry", "k"]),
        # Lean reads the string after these heads as interpolatedStr, with or without a space
        ('s! "v {sorry} w" k', ['s!', '"v {sorry} w"', "sorry", "k"]),
        ('m!"{a}"', ['m!', '"{a}"', "a"]),
        ('dbg_trace "{b}"; c', ['dbg_trace', '"{b}"', "b", ";", "c"]),
        ('throwError "{d}"', ['throwError', '"{d}"', "d"]),
        ('trace[x] "{e}"', ['trace', '[', 'x', ']', '"{e}"', "e"]),
        ('f "{not code}"', ['f', '"{not code}"']),
        ('"line\\\n   gap" q', ['"line\\\n   gap"', "q"]),
        ("ℝ → 𝓝 x ∘ f⁻¹", ["ℝ", "→", "𝓝", "x", "∘", "f", "⁻¹"]),
        (".Icc a b :=", [".Icc", "a", "b", ":="]),
    ],
)
def test_lexer(source, texts):
    assert [t.text for t in lex(source).tokens] == texts


@pytest.mark.parametrize(("source", "line"), [("a\n/- open /- nested -/\n", 2), ('x\ny "no end', 2), ("'\\", None)])
def test_lexer_reports_unterminated_input(source, line):
    if line is None:
        assert [t.text for t in lex(source).tokens] == ["'", "\\"]
        return
    with pytest.raises(LexError) as exc:
        lex(source)
    assert exc.value.line == line


def test_commands_namespaces_and_statements():
    from lemmata.lean.structure import parse

    src = (
        "import Mathlib\nnamespace A.B\nsection S\nopen Real in\n"
        "theorem t (x : ℝ) : |x| ≥ 0 ∧\n    |x - 1| = |1 - x| := by\n  simp [abs_sub_comm]\n"
        "end S\nend A.B\nnamespace C\n"
        "theorem e : ∀ n : ℕ, n + 0 = n\n  | 0 => rfl\n  | n + 1 => rfl\n"
        "instance inst : Inhabited ℕ where\n  default := 0\n"
        "theorem _root_.top (h : let k := 1; k = 1) : True := trivial\n"
        "@[simp] private lemma p : True := by\n  set_option maxHeartbeats 400000 in\n  open Nat in\n  trivial\n"
    )
    cmds = parse(src).commands
    heads = [c.head for c in cmds]
    assert heads == ["import", "namespace", "section", "theorem", "end", "end", "namespace", "theorem", "instance",
                     "theorem", "lemma"]
    t = cmds[3]
    assert t.decl.full_name == "A.B.t" and [x.text for x in t.scoped_prefix] == ["open", "Real", "in"]
    assert [x.text for x in t.decl.header][-5:] == ["|", "1", "-", "x", "|"], "absolute values are not equations"
    assert t.decl.body[0].text == ":="
    e = cmds[7]
    assert e.decl.full_name == "C.e" and e.decl.body[0].text == "|" and e.decl.header[-1].text == "n"
    assert cmds[8].decl.full_name == "C.inst" and cmds[8].decl.body[0].text == "where"
    top = cmds[9]
    assert top.decl.full_name == "top" and top.decl.body[0].text == ":=" and top.decl.body[1].text == "trivial"
    p = cmds[10]
    assert p.decl.modifiers == ("private",) and p.decl.attributes == ("simp",) and p.decl.full_name == "C.p"
    assert [x.text for x in p.decl.body][-1] == "trivial", "tactic-level open/set_option stay in the proof"


@pytest.mark.parametrize(
    ("source", "texts"),
    [
        # Lean swallows the character after a plain `/-` before counting nesting
        ("/-/- -/ sorry -- -/", ["sorry"]),
        ("/-x-/ y", ["y"]),
        ("/-!/- a -/ b -/ c", ["c"]),
    ],
)
def test_comment_openings_match_lean(source, texts):
    assert [t.text for t in lex(source).tokens] == texts


def test_doc_comment_opening_is_a_token():
    with pytest.raises(LexError):
        lex("/--/")
