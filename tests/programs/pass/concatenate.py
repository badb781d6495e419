# np.concatenate of any number of pieces (a list or a tuple), along a positive or negative axis
# sizes: M=4,N=3,K=2 M=1,N=5,K=1
import numpy as np

def three_last(A: "f32[M,N]", B: "f32[M,K]", C: "f32[M,2]"):
    return np.concatenate([A, B, C], axis=-1)

def four_first(A: "f32[M,N]", B: "f32[K,N]", C: "f32[3,N]", D: "f32[M,N]"):
    return np.concatenate((A, B, C, D), axis=0)

def default_axis(A: "f32[M,N]", B: "f32[K,N]"):
    return np.concatenate([A, B, A]), np.concatenate([A])

def middle_axis(X: "f32[K,M,N]", Y: "f32[K,1,N]"):
    return np.concatenate([X, Y, X * 2.0, Y], axis=1), np.concatenate([Y, X, Y], axis=-2)

def one_piece(A: "f32[M,N]"):
    return np.concatenate([A], axis=-1) * 2.0

def masks(A: "f32[M,N]", B: "f32[M,N]"):
    return np.concatenate([A > 0, B > 0, A > B], axis=1) * 1.5

# vectors joined: as rows [1, N] along their axis, the axis dropped after; a mean over the
# joined N + N (a scale 1 / (N + N) synthesis tries for such a dim)
def vectors(a: "f32[N]", b: "f32[K]"):
    return np.concatenate([a, b, a]) * 2.0

def vector_std(a: "f32[N]"):
    return np.std(np.concatenate([a, a * 2.0]))

# rank 3 along the loop axis and along the last
def batch_axis(X: "f32[K,M,N]"):
    return np.concatenate([X, X * 3.0], axis=0)

def last_axis_3d(X: "f32[K,M,N]", Y: "f32[K,M,2]"):
    return np.concatenate([X, Y], axis=-1)

# np.stack: each tensor given a size-1 axis there, then joined along it
def stacked(X: "f32[M,N]", Y: "f32[M,N]"):
    return np.stack([X, Y]), np.stack((X, Y, X * Y), axis=-1).max(axis=-1)
