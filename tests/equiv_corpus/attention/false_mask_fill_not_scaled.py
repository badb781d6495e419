# the mask's fill value is not scaled when the scale moves inside the where
# expect: false
import numpy as np


def lhs(Q: "f32[S,D]", K: "f32[S,D]", mask: "f32[S,S]"):
    return np.where(mask > 0.5, Q @ K.T, -8.0) * 0.125


def rhs(Q: "f32[S,D]", K: "f32[S,D]", mask: "f32[S,S]"):
    return np.where(mask > 0.5, (Q * 0.125) @ K.T, -8.0)
