"""TF1's unique-naming rules for ops and name scopes (checked against TF 2.21's
tensorflow.compat.v1)."""

import pytest

import flowrt as fr


def _names(ts):
    return [t.name for t in ts]


def test_default_names_get_the_next_free_suffix():
    a = fr.constant(1, name="a")
    assert _names([a + 1, a + 1, a + 1]) == ["add:0", "add_1:0", "add_2:0"]
    assert _names([fr.identity(a), fr.identity(a)]) == ["Identity:0", "Identity_1:0"]
    # tf.add's default name is the op type; the clash check ignores case
    assert fr.add(a, 1).name == "Add_3:0"
    assert _names([fr.constant(1), fr.constant(2)]) == ["Const:0", "Const_1:0"]


def test_explicit_names_skip_taken_suffixes():
    a = fr.constant(1.0, name="x_1")
    assert _names(
        [fr.identity(a, name="x"), fr.identity(a, name="x"), fr.identity(a, name="x")]
    ) == ["x:0", "x_2:0", "x_3:0"]
    b1 = fr.identity(a, name="bar_1")
    b = fr.identity(a, name="bar")
    b2 = fr.identity(a, name="bar")
    assert _names([b1, b, b2]) == ["bar_1:0", "bar:0", "bar_2:0"]


def test_name_clash_check_is_case_insensitive():
    a = fr.constant(1.0, name="a")
    assert fr.identity(a, name="A").name == "A_1:0"
    assert fr.identity(a, name="a_1").name == "a_1_1:0"
    assert fr.identity(a, name="a").name == "a_2:0"


def test_nested_scopes_and_reopening():
    c = fr.constant(1.0, name="c")
    with fr.name_scope("a") as s1:
        with fr.name_scope("b") as s2:
            op = fr.identity(c, name="op")
            op2 = fr.identity(c, name="op")
            plain = c + 1.0
        inner = fr.constant(2.0)
    assert (s1, s2) == ("a/", "a/b/")
    assert _names([op, op2, plain, inner]) == ["a/b/op:0", "a/b/op_1:0", "a/b/add:0", "a/Const:0"]
    with fr.name_scope("a") as s3:
        again = fr.identity(c, name="op")
    with fr.name_scope("A") as s4:
        pass
    assert (s3, again.name, s4) == ("a_1/", "a_1/op:0", "A_2/")
    assert fr.get_default_graph().get_tensor_by_name("a/b/op:0") is op


def test_trailing_slash_reenters_a_scope_exactly():
    c = fr.constant(1.0)
    with fr.name_scope("s"):
        x = fr.identity(c, name="x")
    with fr.name_scope("s/") as s:
        y = fr.identity(c, name="x")
    assert (s, x.name, y.name) == ("s/", "s/x:0", "s/x_1:0")
    with fr.name_scope("x") as xs:
        with fr.name_scope(xs):
            same = fr.identity(c, name="same")
    assert same.name == "x/same:0"


def test_none_and_empty_scope_reset_to_root():
    c = fr.constant(1.0)
    with fr.name_scope("outer"):
        with fr.name_scope(None) as s:
            root = fr.identity(c, name="rooted")
        with fr.name_scope("") as e:
            root2 = fr.identity(c, name="e")
    assert (s, e, root.name, root2.name) == ("", "", "rooted:0", "e:0")


def test_default_name_is_made_unique():
    with fr.name_scope(None, default_name="dflt") as a:
        pass
    with fr.name_scope(None, default_name="dflt") as b:
        pass
    with fr.name_scope("given", default_name="dflt") as c:
        pass
    assert (a, b, c) == ("dflt/", "dflt_1/", "given/")


def test_op_names_and_scope_names_share_one_namespace():
    c = fr.constant(1.0, name="a")
    with fr.name_scope("a") as s:
        q = fr.identity(c, name="q")
    assert (s, q.name) == ("a_1/", "a_1/q:0")
    with fr.name_scope("foo"):
        pass
    assert fr.identity(c, name="foo").name == "foo_1:0"
    with fr.name_scope("s"):
        pass
    with fr.name_scope("s"):
        pass
    assert fr.identity(c, name="s_1").name == "s_1_1:0"
    assert fr.identity(c, name="s_2").name == "s_2:0"


def test_graph_name_scope_and_get_name_scope():
    g = fr.get_default_graph()
    with g.name_scope("top") as s:
        assert g.get_name_scope() == "top" and s == "top/"
        with fr.name_scope("inner"):
            assert g.get_name_scope() == "top/inner"
    assert g.get_name_scope() == ""


def test_name_scope_values_pick_their_graph():
    g = fr.Graph()
    with g.as_default():
        t = fr.constant(1.0)
    with fr.name_scope("v", values=[t]) as s:
        assert fr.get_default_graph() is g
        assert fr.identity(t).name == "v/Identity:0"
    assert s == "v/" and fr.get_default_graph() is not g


def test_unique_name_without_marking():
    g = fr.get_default_graph()
    fr.constant(1.0, name="n")
    assert g.unique_name("n", mark_as_used=False) == "n_1"
    assert g.unique_name("n", mark_as_used=False) == "n_1"
    assert fr.constant(1.0, name="n").name == "n_1:0"


def test_names_match_tensorflow():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()

    def program(m):
        with m.Graph().as_default():
            a = m.constant(1.0, name="a")
            out = [m.identity(a, name="A").name, m.identity(a, name="a_1").name]
            with m.name_scope("s"):
                out.append(m.identity(a, name="x").name)
            with m.name_scope("S") as s:
                out.append(s)
            out.append(m.identity(a, name="s_1").name)
            with m.name_scope("s/"):
                out.append((a + 1.0).name)
            return out

    assert program(fr) == program(tf)
