# '//' applied to a tensor (only sizes support floor division)
import numpy as np


def kernel(X: "f32[M,N]"):
    return X // 2
