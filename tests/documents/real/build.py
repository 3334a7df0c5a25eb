"""Write the real-document planted-error suite's documents (``tests/test_documents_real.py``).

    python tests/documents/real/build.py      (needs torch, IPython and the mirrors below)

Each document is a short passage of a tutorial by others, in its own language, cut from a bare
mirror of its repository at a fixed commit (``fetch github:owner/name`` puts it under
``/work/.mirror/<owner>+<name>/repo``). Where the source stores its own outputs (a notebook) it
is copied as it is; where it stores none (a sphinx-gallery script, a d2l page) its code blocks
are run on PyTorch 2.13 by ``tests/documents/planted/capture.py``'s runner, in a fresh
interpreter, and written as a notebook or a Markdown page with those outputs. The prose and
code are the source's; the only edits are named in ``DROP`` (lines that draw a plot with
matplotlib, which the suite does not install). The tests plant the errors.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PLANTED = os.path.join(os.path.dirname(HERE), "planted")
MIRROR = "/work/.mirror/{}/repo"

KO = ("PyTorchKorea+tutorials-kr", "84b7db6e020c098cf38a0dfaf036007c24057bb1")
ZH = ("d2l-ai+d2l-zh", "e6b18ccea71451a55fcd861d7b96fddf2587b09a")
JA = ("yuji0001+2020Introduction_of_Pytorch", "9394f2b9117ee494e1f30281b5e2c58c1a82903a")

# lines left out of a passage's code: they draw a picture (matplotlib is not installed for the suite)
DROP = re.compile(r"^(import matplotlib.*|plt\..*)$")


def _show(repo: tuple[str, str], path: str) -> str:
    return subprocess.run(["git", "--git-dir", MIRROR.format(repo[0]), "show", f"{repo[1]}:{path}"],
                          capture_output=True, text=True, check=True).stdout


def _headings(prose: str) -> str:
    """reST section titles as Markdown headings (a line of ``~`` under a title would open a fence)."""
    return re.sub(r"^(\S.*)\n([-=~])\2{3,}$", lambda m: {"=": "# ", "-": "## ", "~": "### "}[m.group(2)] + m.group(1),
                  prose, flags=re.M)


def gallery(text: str) -> list[tuple[str, str]]:
    """A sphinx-gallery script as (prose, code) pairs: each comment block and the code after it."""
    pairs: list[tuple[str, str]] = []
    body = text.split('"""', 2)
    prose, code = [body[1].strip("\n")], []
    for line in body[2].splitlines():
        if line.startswith("#####"):
            pairs.append(("\n".join(prose).strip("\n"), "\n".join(code).strip("\n")))
            prose, code = [], []
        elif not code and (line.startswith("#") or (not line.strip() and prose)):
            prose.append(line[2:] if line.startswith("# ") else line.lstrip("#"))
        else:
            code.append(line)
    pairs.append(("\n".join(prose).strip("\n"), "\n".join(code).strip("\n")))
    pairs = [(_headings(p), c) for p, c in pairs]
    return [(p, "\n".join(x for x in c.splitlines() if not DROP.match(x)).strip("\n")) for p, c in pairs]


def d2l(text: str) -> list[tuple[str, str]]:
    """A d2l page as (prose, code) pairs: the PyTorch blocks (``#@tab pytorch`` / ``all``), each with
    the prose before it."""
    pairs, prose = [], []
    for part in re.split(r"(```\{\.python \.input\}\n.*?```)", text, flags=re.S):
        if part.startswith("```{.python"):
            body = part[len("```{.python .input}\n"):-3]
            first, _, rest = body.partition("\n")
            if first.strip() in ("#@tab pytorch", "#@tab all"):
                pairs.append(("\n".join(prose).strip("\n"), rest.strip("\n")))
                prose = []
        else:
            prose.append(part)
    return pairs


_BLOCKS = {"fence": "\n```\n{}```\n", "ko-label": "\n출력:\n\n```python\n{}```\n",
           "ko-result": "\n실행 결과\n\n```text\n{}```\n", "zh-label": "\n输出：\n```\n{}```\n"}


def _capture(cells: list[str], notebook: bool) -> list[dict]:
    spec = json.dumps(cells)
    code = (f"import sys, json; sys.path.insert(0, {PLANTED!r}); import capture, spec; "
            f"spec.DOCUMENTS['x'] = [(c, None) for c in json.loads({spec!r})]; "
            f"print(json.dumps(capture._run_cells('x', {notebook!r})))")
    env = dict(os.environ)
    env.pop("PYTHONWARNINGS", None)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env,
                          cwd=HERE)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _source_note(repo: tuple[str, str], path: str) -> str:
    owner_name = repo[0].replace("+", "/")
    return (f"Passages of {owner_name}@{repo[1][:12]}:{path}; outputs from PyTorch 2.13 "
            "(scalargrad's suite of planted errors in real documents).")


def notebook(repo: tuple[str, str], path: str, pairs: list[tuple[str, str]]) -> dict:
    sys.path.insert(0, PLANTED)
    import capture

    outputs = _capture([c for _, c in pairs], True)
    nb = capture._notebook([(c + "\n", None) for _, c in pairs], outputs)
    nb["cells"][0]["source"] = [_source_note(repo, path)]
    cells = [nb["cells"][0]]
    for (prose, _), cell in zip(pairs, nb["cells"][1:]):
        if prose:
            cells.append({"cell_type": "markdown", "metadata": {}, "source": prose.splitlines(True)})
        cells.append(cell)
    nb["cells"] = cells
    return nb


def page(repo: tuple[str, str], path: str, pairs: list[tuple[str, str]], style: str) -> str:
    outputs = _capture([c for _, c in pairs], False)
    parts = [f"<!-- {_source_note(repo, path)} -->\n"]
    for (prose, code), o in zip(pairs, outputs):
        parts.append(f"\n{prose}\n\n```python\n{code}\n```\n")
        shown = o["stdout"]
        if o["error"] is not None:
            shown += "Traceback (most recent call last):\n  ...\n" + f"{o['error'][0]}: {o['error'][1]}\n"
        if shown:
            parts.append(_BLOCKS[style].format(shown))
    return "".join(parts)


def main() -> int:
    ko_deeper = gallery(_show(KO, "beginner_source/introyt/tensors_deeper_tutorial.py"))
    # the blocks about zeros/ones/seeds, constants, dtypes, arithmetic; then the failing product the
    # page shows as a note (".. code-block:: sh"), run as the English original's cell runs it
    error_cell = ("a = torch.rand(2, 3)\nb = torch.rand(3, 2)\n\nprint(a * b)")
    pages = {
        "ko_tensors.md": (KO, "beginner_source/introyt/tensors_deeper_tutorial.py",
                          [("", ko_deeper[0][1])] + [ko_deeper[i] for i in (2, 3, 5, 6, 7, 8)]
                          + [(ko_deeper[9][0].split(".. note::")[0].strip(), error_cell)], "ko-label"),
    }
    ko_yt = gallery(_show(KO, "beginner_source/introyt/autogradyt_tutorial.py"))
    start = next(i for i, (_, c) in enumerate(ko_yt) if c.startswith("import torch"))
    pages["ko_autogradyt.md"] = (KO, "beginner_source/introyt/autogradyt_tutorial.py", ko_yt[start:start + 8],
                                 "ko-result")
    books = {}
    ko_qs = gallery(_show(KO, "beginner_source/basics/autogradqs_tutorial.py"))
    books["ko_autogradqs.ipynb"] = (KO, "beginner_source/basics/autogradqs_tutorial.py",
                                    [p for p in ko_qs if p[1]])
    zh = d2l(_show(ZH, "chapter_preliminaries/autograd.md"))
    books["zh_autograd.ipynb"] = (ZH, "chapter_preliminaries/autograd.md", zh)
    zh_nd = d2l(_show(ZH, "chapter_preliminaries/ndarray.md"))
    books["zh_ndarray.ipynb"] = (ZH, "chapter_preliminaries/ndarray.md", zh_nd)
    for name, (repo, path, pairs, style) in pages.items():
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as fh:
            fh.write(page(repo, path, pairs, style))
    for name, (repo, path, pairs) in books.items():
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as fh:
            json.dump(notebook(repo, path, pairs), fh, indent=1, ensure_ascii=False)
            fh.write("\n")
    # a notebook with its author's own outputs (an older PyTorch), copied as it is, and the page
    # ``jupyter nbconvert --to markdown`` makes of it
    text = _show(JA, "operator.ipynb")
    with open(os.path.join(HERE, "ja_operator.ipynb"), "w", encoding="utf-8") as fh:
        fh.write(text)
    with open(os.path.join(HERE, "ja_operator_nbconvert.md"), "w", encoding="utf-8") as fh:
        fh.write(nbconvert_markdown(json.loads(text)))
    return 0


def nbconvert_markdown(nb: dict) -> str:
    """A notebook as nbconvert's Markdown template writes it: each code cell in a ``python``
    fence, each output after it indented by four spaces (a displayed result after three more
    blank lines), an error as its traceback's lines."""
    parts = []
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] != "code":
            parts.append(source + "\n")
            continue
        parts.append(f"```python\n{source}\n```\n")
        for out in cell.get("outputs", []):
            if out["output_type"] == "stream":
                text, lead = "".join(out["text"]), "\n"
            elif out["output_type"] in ("execute_result", "display_data"):
                text, lead = "".join(out["data"].get("text/plain", "")), "\n\n\n\n"
            else:
                text, lead = "\n".join(out.get("traceback", [])) or f"{out['ename']}: {out['evalue']}", "\n"
            parts.append(lead + "".join("    " + ln if ln.strip() else ln for ln in text.splitlines(True))
                         + "\n")
        parts.append("\n")
    return "\n".join(parts)


if __name__ == "__main__":
    sys.exit(main())
