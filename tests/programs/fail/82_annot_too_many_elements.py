# fixed dimensions whose product (the element count) passes 2^62
import numpy as np


def kernel(X: "f32[2147483648,2147483648,2]"):
    return X * 2.0
