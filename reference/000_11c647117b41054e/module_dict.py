import scalargrad as torch
from scalargrad import nn
import pprint
# Reference program: 000_11c647117b41054e.txt, first example (the __dict__ of an
# empty nn.Module subclass). Indentation restored. The document evaluates
# `model_obj.__dict__` in a notebook cell and shows the cell's display as a
# comment; as a script we print it with pprint (one key per line, insertion
# order kept), which is the layout the notebook showed. `import scalargrad as
# torch` and `import pprint` are added; the document only imports nn.


class Model(nn.Module):
    def __init__(self):
        super().__init__()


def module_hook(grad):
    pass


model_obj = Model()
pprint.pprint(model_obj.__dict__, sort_dicts=False)
