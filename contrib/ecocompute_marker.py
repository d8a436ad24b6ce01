"""Speak EcoCompute's command protocol (docs/command-protocol.md) from Python; no dependencies.

Marked mode, under `ecocompute meter -- python3 prog.py`:
    import ecocompute_marker as eco
    with eco.window("decode") as w:      # the meter is read before the body runs
        out = model.generate(...)         # synchronize the device before the block ends
        w.tokens = n_new_tokens           # read again after it, with this count
Driven mode, under `ecocompute measure --engine command --baseline-command 'FP16=python3 prog.py'`:
    eco.driven(handler, engine="transformers", version=transformers.__version__, precision="FP16")
    # handler(verb, n) does `n` tokens of "prefill" or "decode" work, synchronizes, returns the count.
Outside ecocompute (no ECOCOMPUTE_* variables) windows are no-ops, so the program runs as usual.
"""
import contextlib
import os

_ctl = int(os.environ["ECOCOMPUTE_CONTROL_FD"]) if "ECOCOMPUTE_CONTROL_FD" in os.environ else None
_rep = int(os.environ["ECOCOMPUTE_REPLY_FD"]) if "ECOCOMPUTE_REPLY_FD" in os.environ else None
_inp = os.fdopen(_ctl, "r", buffering=1) if _ctl is not None else None


def _send(line):
    os.write(_rep, (line + "\n").encode("ascii", "replace"))


def _ask(line):
    _send(line)
    reply = _inp.readline().strip()
    if reply != "ok":
        raise RuntimeError("ecocompute refused %r: %s" % (line, reply))


class _Window:
    tokens = None


@contextlib.contextmanager
def window(label):
    w = _Window()
    if _rep is None:
        yield w
        return
    _ask("begin " + label)
    yield w  # an exception inside leaves the window open: the tool reports it as failed
    _ask("end %s" % label + ("" if w.tokens is None else " tokens=%d" % w.tokens))


def driven(handler, **hello):
    """Declares the program (hello engine=… k=v …), then answers prefill/decode requests until quit."""
    if _rep is None:
        raise SystemExit("driven mode runs under `ecocompute measure --engine command`")
    _send("hello " + " ".join("%s=%s" % (k, str(v).replace(" ", "_")) for k, v in hello.items()))
    for line in _inp:
        verb, _, arg = line.strip().partition(" ")
        if verb == "quit":
            return
        try:
            _send("done tokens=%d" % handler(verb, int(arg)))
        except Exception as e:  # the request failed; the program stays in step with the tool
            _send("error %s: %s" % (type(e).__name__, str(e).replace("\n", " ")[:200]))
