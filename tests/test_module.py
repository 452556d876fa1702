"""fr.Module: variable tracking through attributes, name scopes."""

import pytest

import flowrt as fr


def test_module_tracks_variables_and_submodules_by_attribute_name():
    class Inner(fr.Module):
        def __init__(self):
            super().__init__()
            with self.name_scope:
                self.w = fr.Variable(1.0, name="w")
                self.frozen = fr.Variable(2.0, name="frozen", trainable=False)

    class Outer(fr.Module):
        def __init__(self):
            super().__init__(name="outer")
            self.parts = [Inner(), Inner()]
            self.b = fr.Variable(0.0, name="b")

    m = Outer()
    assert m.name == "outer"
    assert [v.name for v in m.variables] == [
        "b:0",
        "inner/frozen:0",
        "inner/w:0",
        "inner_1/frozen:0",
        "inner_1/w:0",
    ]
    assert [v.name for v in m.trainable_variables] == ["b:0", "inner/w:0", "inner_1/w:0"]
    assert len(m.non_trainable_variables) == 2 and len(m.submodules) == 2
    with pytest.raises(ValueError, match="not a valid module name"):
        fr.Module(name="has space")


def test_with_name_scope_and_scope_reentry_in_a_function():
    class Scaled(fr.Module):
        def __init__(self):
            super().__init__(name="scaled")
            self.k = fr.Variable(2.0, name="k")

        @fr.Module.with_name_scope
        def __call__(self, x):
            return fr.multiply(x, self.k, name="times_k")

    m = Scaled()
    names = {}

    @fr.function
    def f(x):
        y = m(x)
        names["y"] = y.op.name
        return y

    assert f(3.0) == 6.0
    assert names["y"] == "scaled/times_k"
