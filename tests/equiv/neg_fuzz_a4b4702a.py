# expect: not
# fuzz_equiv.py (seed 1, pair 193 of the generator as it was then; attention: other spellings; MUTATION transpose one operand): proved equivalent, but NumPy differs at M=6: output 0 element [0, 0, 0] is -0.183455 against -0.0576413
import numpy as np

def lhs(Q: "f32[M,M,M]"):
    return Q / np.sum(np.exp(Q @ Q), axis=-1, keepdims=True)

def rhs(Q: "f32[M,M,M]"):
    return Q / np.sum(np.exp(Q @ np.swapaxes(Q, 1, 2)), axis=2)[:, :, None]
