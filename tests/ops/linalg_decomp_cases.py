# Prints the PyTorch 1.13 values that tests/ops/linalg_decomp_test.cpp checks.
# Run with /usr/bin/python3 (the python3 that has torch).
import torch

torch.set_printoptions(precision=8)
d = torch.float64


def t(e):
    try:
        print(e, '->', eval(e))
    except Exception as ex:
        print(e, 'ERR', str(ex).split('\n')[0])


P = torch.tensor([[4., 2., 0.6], [2., 5., 1.], [0.6, 1., 3.]], dtype=d)
Pb = torch.tensor([[[2., 1.], [1., 3.]], [[1., 0.5], [0.5, 2.]]], dtype=d)
S = torch.tensor([[2., -1., 0.5], [-1., 3., 0.2], [0.5, 0.2, 1.]], dtype=d)
N = torch.tensor([[2., 7., 9.], [-1., 3., 4.], [0.5, 0.2, 1.]], dtype=d)  # eigh reads one triangle
M = torch.tensor([[1., 2.], [3., 4.], [5., 7.]], dtype=d)
W = torch.tensor([[1., 2., 3.], [4., 5., 6.]], dtype=d)
R = torch.tensor([[1., 2.], [2., 4.]], dtype=d)
B = torch.tensor([[1.], [2.], [4.]], dtype=d)
E1 = torch.tensor([[0., 0.5], [-0.5, 0.]], dtype=d)
E2 = torch.tensor([[2., 4.], [6., 8.]], dtype=d)
# cholesky
t("torch.linalg.cholesky(P)"); t("torch.linalg.cholesky(P, upper=True)"); t("torch.linalg.cholesky(Pb)")
t("torch.cholesky_solve(torch.tensor([[1., 2.], [0., 1.], [3., -1.]], dtype=d), torch.linalg.cholesky(P))")
t("torch.cholesky_solve(torch.tensor([[1., 2.], [0., 1.], [3., -1.]], dtype=d), torch.linalg.cholesky(P, upper=True), upper=True)")
t("torch.cholesky_inverse(torch.linalg.cholesky(P))")
t("torch.linalg.cholesky(torch.tensor([[[1., 0], [0, 1]], [[1., 2], [2, 1]]]))")
# eigh
t("torch.linalg.eigh(S)"); t("torch.linalg.eigvalsh(N)"); t("torch.linalg.eigvalsh(N, UPLO='U')")
t("torch.linalg.eigvalsh(Pb)"); t("torch.linalg.eigh(S)[1].abs()")
# svd
t("torch.linalg.svd(M)"); t("torch.linalg.svd(M, full_matrices=False)"); t("torch.linalg.svdvals(W)")
t("torch.linalg.svdvals(R)"); t("torch.linalg.svdvals(Pb)"); t("torch.svd(M)[2].abs()"); t("torch.svd(M)[0].shape")
t("torch.svd(M, some=False)[0].shape"); t("torch.svd(M, compute_uv=False)")
# norms on singular values
t("torch.linalg.matrix_norm(M, 2)"); t("torch.linalg.matrix_norm(M, -2)"); t("torch.linalg.matrix_norm(M, 'nuc')")
t("torch.linalg.matrix_norm(Pb, 'nuc', dim=(0, 2), keepdim=True)"); t("torch.linalg.norm(W, 2)")
t("torch.nuclear_norm(W)")
# pinv, matrix_rank, cond, lstsq
t("torch.linalg.pinv(M)"); t("torch.linalg.pinv(R)"); t("torch.linalg.pinv(S, hermitian=True)"); t("torch.pinverse(W)")
t("torch.linalg.pinv(M, atol=0.5)"); t("torch.linalg.matrix_rank(R)"); t("torch.linalg.matrix_rank(M)")
t("torch.linalg.matrix_rank(M, tol=0.5)"); t("torch.linalg.matrix_rank(Pb, hermitian=True)")
t("torch.linalg.matrix_rank(M, atol=0.4, rtol=0.0)")
t("torch.linalg.cond(P)"); t("torch.linalg.cond(M)"); t("torch.linalg.cond(P, -2)"); t("torch.linalg.cond(P, 1)")
t("torch.linalg.cond(P, float('inf'))"); t("torch.linalg.cond(P, 'fro')"); t("torch.linalg.cond(P, 'nuc')")
Sg = torch.tensor([[[1., 2.], [2., 4.]], [[2., 1.], [1., 3.]]], dtype=d)
t("torch.linalg.cond(Sg, 1)"); t("torch.linalg.cond(Sg, 'fro')"); t("torch.linalg.cond(Sg, float('-inf'))")
t("torch.linalg.lstsq(M, B)"); t("torch.linalg.lstsq(M, B, driver='gelsd')"); t("torch.linalg.lstsq(W, B[:2])")
t("torch.linalg.lstsq(M, B, driver='gels')")
# qr
t("torch.linalg.qr(M)"); t("torch.linalg.qr(M, mode='complete')"); t("torch.linalg.qr(W)"); t("torch.linalg.qr(M, mode='r')")
t("torch.qr(M, some=False)")
t("torch.geqrf(M)"); t("torch.linalg.householder_product(*torch.geqrf(M))")
t("torch.orgqr(torch.geqrf(M)[0], torch.geqrf(M)[1][:1])")
# matrix_exp and the smaller ones
t("torch.linalg.matrix_exp(E1)"); t("torch.matrix_exp(E2)"); t("torch.linalg.matrix_exp(Pb)")
t("torch.linalg.cross(torch.tensor([[1., 2., 3.]]), torch.tensor([[4., 5., 6.], [-1., 0., 2.]]))")
t("torch.linalg.vecdot(M, torch.tensor([1., -1.], dtype=d))")
t("torch.linalg.vander(torch.tensor([1, 2, 3]))"); t("torch.linalg.vander(torch.tensor([0.5, -2.]), N=4)")
t("torch.linalg.tensorinv(torch.tensor([[2., 1., 0., 0.], [1., 3., 0., 1.], [0., 0., 1., 0.], [0., 2., 0., 4.]]).reshape(4, 2, 2), ind=1)")
t("torch.linalg.tensorsolve(torch.tensor([[2., 1., 0., 0.], [1., 3., 0., 1.], [0., 0., 1., 0.], [0., 2., 0., 4.]]).reshape(2, 2, 2, 2), torch.tensor([[1., 2.], [3., 4.]]))")
t("torch.linalg.matrix_power(Pb, 3)")
# gradients PyTorch computes (compared by gradcheck in the test; printed for reference)
a = S.clone().requires_grad_(); torch.linalg.eigvalsh(a).mul(torch.tensor([1., 2., 3.], dtype=d)).sum().backward()
print('d eigvalsh', a.grad)
a = M.clone().requires_grad_(); torch.linalg.svdvals(a).mul(torch.tensor([1., -2.], dtype=d)).sum().backward()
print('d svdvals', a.grad)
a = P.clone().requires_grad_(); (torch.linalg.cholesky(a) * torch.arange(9., dtype=d).reshape(3, 3)).sum().backward()
print('d cholesky', a.grad)
a = M.clone().requires_grad_(); (torch.linalg.qr(a)[1] * torch.arange(4., dtype=d).reshape(2, 2)).sum().backward()
print('d qr R', a.grad)
