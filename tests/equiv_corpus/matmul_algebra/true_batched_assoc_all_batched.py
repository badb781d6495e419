# batched associativity with every operand batched
# expect: true
import numpy as np


def lhs(A: "f32[B,M,K]", C: "f32[B,K,N]", E: "f32[B,N,P]"):
    return (A @ C) @ E


def rhs(A: "f32[B,M,K]", C: "f32[B,K,N]", E: "f32[B,N,P]"):
    return A @ (C @ E)
