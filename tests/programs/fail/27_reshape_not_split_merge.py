# reshape [A,B,C] to [C,A,B]: not a single split or merge of adjacent axes
import numpy as np


def kernel(X: "f32[A,B,C]"):
    A = X.shape[0]
    B = X.shape[1]
    C = X.shape[2]
    return X.reshape(C, A, B)
