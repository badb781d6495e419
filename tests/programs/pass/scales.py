# numbers made from sizes as model code scales attention: math.sqrt, ** -0.5, np.float32
# sizes: S=3,D=4 S=1,D=2
import math
import numpy as np


def math_sqrt(Q: "f32[S,D]", K: "f32[S,D]"):
    return Q @ K.T / math.sqrt(Q.shape[1])


def power_scale(Q: "f32[S,D]", K: "f32[S,D]"):
    return Q @ K.T * Q.shape[-1] ** -0.5


def float32_size(Q: "f32[S,D]", K: "f32[S,D]"):
    return np.matmul(Q, np.transpose(K)) / np.sqrt(np.float32(Q.shape[1]))


def number_powers(X: "f32[S,D]", eps=1e-6):
    return X * eps ** 0.5 + math.pi * math.exp(1.0) - math.log(2.0)


# GELU's tanh form as model code writes it: a function of numbers known here is the double
# Python computes (math.sqrt(2.0 / math.pi)), a constant of the graph
def gelu_tanh(X: "f32[S,D]"):
    return 0.5 * X * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (X + 0.044715 * X ** 3))) + np.exp(-20.0)
