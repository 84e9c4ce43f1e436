# Prints the PyTorch 1.13 values that tests/ops/linalg_more_test.cpp checks.
# Run with /usr/bin/python3 (the python3 that has torch).
import torch

torch.set_printoptions(precision=8)


def t(e):
    try:
        print(e, '->', eval(e))
    except Exception as ex:
        print(e, 'ERR', str(ex).split('\n')[0])


A = torch.tensor([[2., 1., 0.], [1., 3., 1.], [0., 1., 4.]], dtype=torch.float64)
Bm = torch.tensor([[[0., 2.], [1., 1.]], [[3., -1.], [2., 5.]]], dtype=torch.float64)
S = torch.tensor([[1., 2.], [2., 4.]])
t("torch.inverse(A)"); t("torch.det(A)"); t("torch.linalg.inv(Bm)"); t("torch.det(Bm)")
t("torch.slogdet(Bm)"); t("torch.logdet(Bm)"); t("torch.logdet(S)"); t("torch.slogdet(S)"); t("torch.det(S)")
b = torch.tensor([1., -2., 0.5], dtype=torch.float64)
t("torch.linalg.solve(A, b)")
t("torch.linalg.solve(Bm, torch.tensor([[1., 2.], [3., 4.]], dtype=torch.float64))")
t("torch.linalg.solve(Bm, torch.tensor([[1., 0., 2.], [3., 1., 4.]], dtype=torch.float64))")
t("torch.linalg.solve(A, torch.tensor([[1., 0., 2.], [3., 1., 4.]], dtype=torch.float64), left=False)")
t("torch.linalg.solve(A, b, left=False)")
t("torch.det(torch.zeros(0, 0))"); t("torch.inverse(torch.zeros(0, 0))")
a = A.clone().requires_grad_()
torch.det(a).backward(); print('ddet', a.grad)
a.grad = None
(torch.inverse(a) * torch.arange(9., dtype=torch.float64).reshape(3, 3)).sum().backward(); print('dinv', a.grad)
a.grad = None
bb = b.clone().requires_grad_()
(torch.linalg.solve(a, bb) * torch.tensor([1., 2., 3.], dtype=torch.float64)).sum().backward()
print('dsolve A', a.grad, 'B', bb.grad)
a.grad = None
torch.logdet(a).backward(); print('dlogdet', a.grad)
t("torch.inverse(S)")
t("torch.linalg.inv(torch.stack([torch.eye(2), S]))")
t("torch.linalg.solve(S, torch.ones(2))")
t("torch.inverse(torch.ones(2, 3))"); t("torch.det(torch.ones(3))")
t("torch.det(torch.tensor([[1, 2], [3, 4]]))")
t("torch.linalg.solve(A, torch.ones(2, dtype=torch.float64))")
t("torch.linalg.solve(A.float(), torch.ones(3, dtype=torch.float64))")
# norms
A = torch.tensor([[2., 1., 0.], [1., 3., 1.], [0., 1., 4.]])
t("torch.linalg.norm(A)"); t("torch.linalg.norm(A, 'fro')"); t("torch.linalg.norm(A, 1)")
t("torch.linalg.norm(A, float('inf'))"); t("torch.linalg.norm(torch.tensor([3., -4.]), 1)")
t("torch.linalg.norm(torch.tensor([3., -4.]), float('inf'))"); t("torch.linalg.norm(torch.ones(2, 2, 2))")
t("torch.linalg.norm(torch.ones(2, 2, 2), 1)"); t("torch.linalg.norm(A, dim=1)"); t("torch.linalg.norm(A, 1, dim=1)")
t("torch.linalg.vector_norm(A, 1, dim=1)"); t("torch.linalg.vector_norm(A, float('-inf'), dim=(0, 1), keepdim=True)")
t("torch.linalg.vector_norm(A, 0)"); t("torch.linalg.vector_norm(A, 3)")
t("torch.linalg.vector_norm(A, dtype=torch.float64)")
t("torch.linalg.matrix_norm(A, -1)"); t("torch.linalg.matrix_norm(A, float('-inf'))")
t("torch.linalg.matrix_norm(A, 'fro', dim=(1, 0), keepdim=True)")
t("torch.linalg.matrix_norm(torch.arange(8.).reshape(2, 2, 2), 1)")
t("torch.linalg.matrix_norm(A, 3)"); t("torch.linalg.matrix_norm(torch.ones(3))")
t("torch.linalg.vector_norm(torch.tensor([1, 2]))")
C = torch.tensor([[1., -2.], [3., 0.5]], requires_grad=True)
t("torch.linalg.vector_norm(C, -1, dim=0)"); t("torch.linalg.vector_norm(C, 0.5)")
t("torch.linalg.matrix_norm(C, float('inf'))")
torch.linalg.norm(C).backward(); print('dnorm fro', C.grad)
C.grad = None
torch.linalg.matrix_norm(C, 1).backward(); print('dnorm 1', C.grad)

# det's gradient at singular matrices: PyTorch 1.13 gives zeros; locus gives the cofactor matrix
# (d det / dA), here computed independently from the minors with numpy.
import numpy as np


def cofactors(a):
    n = a.shape[0]
    c = np.zeros_like(a)
    for i in range(n):
        for j in range(n):
            c[i, j] = (-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a, i, 0), j, 1))
    return c


print('cofactors', cofactors(np.array([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]])))
print('cofactors', cofactors(np.array([[1., 2.], [2., 4.]])))
b = torch.tensor([[[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]], [[2., 0., 0.], [0., 3., 0.], [0., 0., 4.]]],
                 dtype=torch.float64, requires_grad=True)
(torch.det(b) * torch.tensor([1., 2.], dtype=torch.float64)).sum().backward()
print('PyTorch ddet batch', b.grad)
