# a dedent to a column that matches no outer block
import numpy as np


def kernel(X: "f32[M,N]"):
        y = np.exp(X)
    return y
