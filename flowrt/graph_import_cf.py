"""TF1's control flow (``Switch``/``Merge``/``Enter``/``Exit``/``NextIteration``/
``LoopCond``) rewritten into TF 2's functional form (``While``/``If`` nodes calling
functions of the GraphDef's library), which ``import_graph_def`` builds with flowrt's
``while_loop`` and ``cond``; flowrt's executor has no dead tensors or frames.

- A while loop is the frame of its ``Enter`` nodes: each loop variable is an ``Enter`` ->
  ``Merge`` -> ``Switch`` -> ... -> ``NextIteration`` cycle, the ``LoopCond`` input is the
  condition, and the constant ``Enter`` nodes bring in the tensors it reads from outside. The
  condition and the body become functions of (variables, constants); each ``Exit`` becomes
  an ``Identity`` of the ``While`` node's output, under the ``Exit``'s name.
- A cond is the ``Switch`` nodes of one predicate and the ``Merge`` nodes closing them: the
  nodes under each side of the switches become a function of the switched tensors, and
  each ``Merge`` becomes an ``Identity`` of the ``If`` node's output.

Only the outermost constructs are rewritten here; their bodies are GraphDefs that the
importer rewrites again (a cond in a loop, a loop in a loop). The functions use flowrt's
flat ``node:i`` inputs (TF's own ``node:arg:i`` needs OpDefs flowrt does not hold).
"""

from __future__ import annotations

from .protos.graph_pb2 import FunctionDef, GraphDef, NodeDef

__all__ = ["functional_control_flow", "split_input", "tensor_name"]

_V1_OPS = frozenset({"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"})


def split_input(s: str) -> tuple[str, int]:
    """``"name:i"`` -> (name, i); ``"name"`` -> (name, 0); ``"^name"`` -> (name, -1)."""
    if s.startswith("^"):
        return s[1:], -1
    name, sep, index = s.rpartition(":")
    if sep and index.isdigit():
        return name, int(index)
    return s, 0


_split = split_input


def tensor_name(s: str) -> str:
    """An input's tensor as ``node:i`` (``node`` is ``node:0``)."""
    name, i = _split(s)
    return "%s:%d" % (name, max(i, 0))


_tensor = tensor_name


class _Rewrite:
    def __init__(self, gd: GraphDef) -> None:
        self.gd = gd
        self.nodes = {n.name: n for n in gd.node}
        self.used = set(self.nodes)
        self.consumers: dict[str, list[str]] = {n: [] for n in self.nodes}
        for n in gd.node:
            for s in n.input:
                src = _split(s)[0]
                if src in self.consumers:
                    self.consumers[src].append(n.name)
        self.library = GraphDef().library
        self.library.CopyFrom(gd.library)
        self.removed: set[str] = set()
        self.added: list[NodeDef] = []

    def fresh(self, base: str) -> str:
        name, k = base, 0
        while name in self.used:
            k += 1
            name = "%s_%d" % (base, k)
        self.used.add(name)
        return name

    def forward(self, starts, stop) -> set[str]:
        """Nodes reachable from ``starts`` (included) along data and control edges, not
        going past nodes for which ``stop`` holds (included)."""
        seen = set(starts)
        todo = list(starts)
        while todo:
            n = todo.pop()
            if stop(self.nodes[n]) and n not in starts:
                continue
            for c in self.consumers[n]:
                if c not in seen:
                    seen.add(c)
                    todo.append(c)
        return seen

    def function(self, name: str, body: list[str], args: dict[str, tuple[str, int]], outs):
        """Adds to the library function ``name`` of the nodes ``body``: ``args`` maps the
        tensors (``node:i``) it reads from outside to (arg name, dtype enum); ``outs``
        are its output tensors."""
        f = FunctionDef()
        f.signature.name = name
        for arg, dtype in args.values():
            f.signature.input_arg.add(name=arg, type=dtype)
        inside = set(body)

        def ref(s: str, where: str) -> str:
            if s.startswith("^"):
                return s if s[1:] in inside else ""
            t = _tensor(s)
            if t in args:
                return args[t][0]
            if _split(t)[0] in inside:
                return t
            raise ValueError(
                "Node '%s' reads '%s' from outside its TF1 control-flow construct without "
                "a Switch or Enter; flowrt cannot import it" % (where, s)
            )

        for n in body:
            node = f.node_def.add()
            node.CopyFrom(self.nodes[n])
            del node.input[:]
            node.input.extend(r for r in (ref(s, n) for s in self.nodes[n].input) if r)
        for k, o in enumerate(outs):
            f.signature.output_arg.add(name="out_%d" % k)
            f.ret["out_%d" % k] = ref(o, name)
        self.library.function.append(f)

    def backward(self, outs, boundary: set[str]) -> list[str]:
        """The nodes ``outs`` depend on, not going past ``boundary`` nodes (excluded)."""
        seen: set[str] = set()
        todo = [_split(o)[0] for o in outs]
        while todo:
            n = todo.pop()
            if n in seen or n in boundary:
                continue
            seen.add(n)
            todo.extend(_split(s)[0] for s in self.nodes[n].input)
        return [n for n in self.nodes if n in seen]  # in GraphDef order

    def identity(self, name: str, src: str, dtype) -> None:
        node = NodeDef(name=name, op="Identity", input=[src])
        node.attr["T"].type = dtype
        self.added.append(node)

    # --- while loops ---------------------------------------------------------------

    def loops(self) -> None:
        frames: dict[str, list[NodeDef]] = {}
        for n in self.gd.node:
            if n.op == "Enter":
                frames.setdefault(n.attr["frame_name"].s.decode(), []).append(n)
        parts = {f: self.loop_parts(f, enters) for f, enters in frames.items()}
        inside = {
            f: self.forward([e.name for e in enters], lambda n, f=f: n.name in parts[f][3])
            for f, enters in frames.items()
        }
        for frame, enters in frames.items():
            nested = any(
                _split(e.input[0])[0] in nodes
                for other, nodes in inside.items()
                if other != frame
                for e in enters
            )
            if not nested:
                self.loop(frame, enters, inside[frame], parts[frame])

    def loop_parts(self, frame: str, enters: list[NodeDef]):
        """(merges, switches, next iterations, {exit: variable index}, loop cond) of the
        loop variables of ``frame``."""
        where = "TF1 while loop '%s'" % frame
        merges, switches, nexts, exits = [], [], [], {}
        cond_node = None
        for e in enters:
            if e.attr["is_constant"].b:
                continue
            ms = [c for c in self.consumers[e.name] if self.nodes[c].op == "Merge"]
            if len(ms) != 1:
                raise ValueError("%s: Enter '%s' feeds no Merge" % (where, e.name))
            merge = self.nodes[ms[0]]
            back = [_split(s)[0] for s in merge.input if _split(s)[0] != e.name]
            sw = [self.nodes[c] for c in self.consumers[merge.name] if self.nodes[c].op == "Switch"]
            if len(back) != 1 or self.nodes[back[0]].op != "NextIteration" or len(sw) != 1:
                raise ValueError("%s: Merge '%s' is not a loop variable's" % (where, merge.name))
            cond_node = self.nodes[_split(sw[0].input[1])[0]]
            merges.append(merge)
            switches.append(sw[0])
            nexts.append(self.nodes[back[0]])
            for c in self.consumers[sw[0].name]:
                if self.nodes[c].op == "Exit":
                    exits[c] = len(merges) - 1
        if cond_node is None or cond_node.op != "LoopCond":
            raise ValueError("%s: its Switches are not gated by a LoopCond" % where)
        return merges, switches, nexts, exits, cond_node

    def loop(self, frame: str, enters: list[NodeDef], inside: set[str], parts) -> None:
        where = "TF1 while loop '%s'" % frame
        merges, switches, nexts, exits, cond_node = parts
        variables = [e for e in enters if not e.attr["is_constant"].b]
        constants = [e for e in enters if e.attr["is_constant"].b]
        for n in inside - set(exits):
            for c in self.consumers[n]:
                if c not in inside:
                    raise ValueError(
                        "%s: node '%s' outside the loop reads '%s' inside it (not an Exit)"
                        % (where, c, n)
                    )
        dtypes = [e.attr["T"].type for e in variables + constants]
        suffix = "/while_context"
        base = self.fresh(frame[: -len(suffix)] + "/while" if frame.endswith(suffix) else frame)
        arg_names = ["arg_%d" % k for k in range(len(dtypes))]
        n_vars = len(variables)
        consts = {
            "%s:0" % c.name: (a, t)
            for c, a, t in zip(constants, arg_names[n_vars:], dtypes[n_vars:])
        }
        boundary = {c.name for c in constants}
        cond_args = {"%s:0" % m.name: (a, t) for m, a, t in zip(merges, arg_names, dtypes)}
        cond_args.update(consts)
        cond_out = [cond_node.input[0]]
        # The other parts of the loop bound each function: reading them is an error.
        parts_of_loop = {n.name for n in merges + switches + nexts + [cond_node]} | boundary
        cond_body = self.backward(cond_out, parts_of_loop)
        self.function(base + "_cond", cond_body, cond_args, cond_out)
        body_args = {"%s:1" % s.name: (a, t) for s, a, t in zip(switches, arg_names, dtypes)}
        body_args.update(consts)
        body_outs = [n.input[0] for n in nexts] + list(consts)
        body = self.backward(body_outs, parts_of_loop)
        self.function(base + "_body", body, body_args, body_outs)
        node = NodeDef(name=base, op="While")
        node.input.extend(e.input[0] for e in variables + constants)
        node.attr["cond"].func.name = base + "_cond"
        node.attr["body"].func.name = base + "_body"
        node.attr["T"].list.type.extend(dtypes)
        node.attr["parallel_iterations"].i = enters[0].attr["parallel_iterations"].i or 10
        self.added.append(node)
        for x, k in exits.items():
            self.identity(x, "%s:%d" % (base, k), dtypes[k])
        self.removed |= inside

    # --- conds ----------------------------------------------------------------------

    def conds(self) -> None:
        """Rewrites the outermost conds of the nodes left (the graph is acyclic now)."""
        order = _topological([n for n in self.gd.node if n.name not in self.removed])
        ctx: dict[str, tuple] = {}  # tensor or "^node" -> its stack of (pred, side)

        def of(s: str) -> tuple:
            name, i = _split(s)
            key = "^" + name if i < 0 else "%s:%d" % (name, i)
            return ctx.get(key, ctx.get("^" + name, ()))

        for n in order:
            ins = [of(s) for s in n.input]
            deepest = max(ins, key=len, default=())
            if n.op == "Merge":
                own = deepest[:-1]
            else:
                own = deepest
            ctx["^" + n.name] = own
            if n.op == "Switch":
                pred = self.root(n.input[1])
                ctx["%s:0" % n.name] = own + ((pred, False),)
                ctx["%s:1" % n.name] = own + ((pred, True),)
        preds: dict[str, list[NodeDef]] = {}
        for n in order:
            if n.op == "Switch" and ctx["^" + n.name] == ():
                preds.setdefault(self.root(n.input[1]), []).append(n)
        for pred, sws in preds.items():
            self.cond(pred, sws, order, ctx, of)

    def root(self, s: str) -> str:
        """The tensor ``s`` is an ``Identity`` chain of (TF's ``pred_id`` of a pred)."""
        t = _tensor(s)
        node = self.nodes.get(_split(t)[0])
        while node is not None and node.op == "Identity" and node.input:
            t = _tensor(node.input[0])
            node = self.nodes.get(_split(t)[0])
        return t

    def cond(self, pred, sws, order, ctx, of) -> None:
        where = "TF1 cond on '%s'" % pred
        merges = [
            n
            for n in order
            if n.op == "Merge"
            and ctx["^" + n.name] == ()
            and any(of(s)[:1] and of(s)[0][0] == pred for s in n.input)
        ]
        sides = {
            side: [n.name for n in order if ctx["^" + n.name][:1] == ((pred, side),)]
            for side in (True, False)
        }
        outs: dict[bool, list[str]] = {True: [], False: []}
        for m in merges:
            if len(m.input) != 2:
                raise ValueError("%s: Merge '%s' has %d inputs" % (where, m.name, len(m.input)))
            for s in m.input:
                outs[of(s)[0][1]].append(s)
        dtypes = [sw.attr["T"].type for sw in sws]
        base = self.fresh(merges[0].name.rpartition("/")[0] + "/cond" if merges else "cond")
        for side, branch in (("then", True), ("else", False)):
            args = {
                "%s:%d" % (sw.name, int(branch)): ("arg_%d" % k, t)
                for k, (sw, t) in enumerate(zip(sws, dtypes))
            }
            body = [n for n in sides[branch] if n not in {sw.name for sw in sws}]
            self.function("%s_%s" % (base, side), body, args, outs[branch])
        node = NodeDef(name=base, op="If")
        node.input.append(pred)
        node.input.extend(sw.input[0] for sw in sws)
        node.attr["then_branch"].func.name = base + "_then"
        node.attr["else_branch"].func.name = base + "_else"
        self.added.append(node)
        for k, m in enumerate(merges):
            self.identity(m.name, "%s:%d" % (base, k), m.attr["T"].type)
        self.removed |= {sw.name for sw in sws} | set(sides[True]) | set(sides[False])
        self.removed |= {m.name for m in merges}

    def result(self) -> GraphDef:
        out = GraphDef()
        out.CopyFrom(self.gd)
        del out.node[:]
        out.node.extend(n for n in self.gd.node if n.name not in self.removed)
        out.node.extend(self.added)
        out.library.CopyFrom(self.library)
        return out


def _topological(nodes: list[NodeDef]) -> list[NodeDef]:
    names = {n.name for n in nodes}
    done: set[str] = set()
    out = []
    pending = list(nodes)
    while pending:
        rest = []
        for n in pending:
            if all(_split(s)[0] in done or _split(s)[0] not in names for s in n.input):
                done.add(n.name)
                out.append(n)
            else:
                rest.append(n)
        if len(rest) == len(pending):
            out.extend(rest)  # a cycle: the importer reports it
            break
        pending = rest
    return out


def functional_control_flow(gd: GraphDef) -> GraphDef:
    """``gd`` with its outermost TF1 loops and conds as ``While``/``If`` nodes of library
    functions; ``gd`` itself when it has none."""
    if not any(n.op in _V1_OPS for n in gd.node):
        return gd
    loops = _Rewrite(gd)
    loops.loops()
    # Conds are found in the graph with its loops rewritten: a loop in a branch is a node.
    conds = _Rewrite(loops.result())
    conds.conds()
    return conds.result()
