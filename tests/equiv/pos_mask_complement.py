# expect: equivalent
# a mask and its complement split x; X > Y is Y < X; 1 - (X != Y) is X == Y
import numpy as np

def lhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return (X >= 0.5) * X + (X < 0.5) * X + (X > Y) + 1.0 - (X != Y)

def rhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return X + (Y < X) + (X == Y)
