# a mask filled with -np.inf: no real number, so the checker could not reason about it
import numpy as np


def kernel(S: "f32[M,N]", mask: "f32[M,N]"):
    return np.where(mask > 0, S, -np.inf)
