# Prints the PyTorch 1.13 values that tests/ops/statistics_test.cpp checks.
# Run with /usr/bin/python3 (the python3 that has torch).
import torch

torch.set_printoptions(precision=8)
nan = float('nan')


def t(e):
    try:
        print(e, '->', eval(e))
    except Exception as ex:
        print(e, 'ERR', str(ex).split('\n')[0])


# ---- unique family ----
x = torch.tensor([5, 3, 5, 1, 3, 3])
t("torch._unique(x, True, True)")
t("torch._unique2(x, True, True, True)")
t("torch._unique2(torch.tensor([[2, 1], [1, 2]]), True, True, True)")
t("torch._unique2(torch.tensor([True, False, True]), True, True, True)")
t("torch._unique2(torch.tensor(3.), True, True, True)")
t("torch._unique2(x, True, False, False)")
m = torch.tensor([[1, 2], [0, 1], [1, 2], [0, 0]])
t("torch.unique(m, sorted=True, return_inverse=True, return_counts=True, dim=0)")
t("torch.unique(m, sorted=True, return_inverse=True, return_counts=True, dim=1)")
t("torch.unique(torch.tensor([[1., nan], [1., nan]]), True, True, True, dim=0)")
t("torch.unique(torch.zeros(2, 0), dim=0)")
t("torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1, 2]), True, True)")
t("torch.unique_consecutive(torch.tensor([1., nan, nan, 2]), True, True)")
t("torch.unique_consecutive(torch.tensor([[1, 1, 2], [1, 1, 2]]), True, True, 1)")
# NaN in _unique: PyTorch 1.13's cpu result is [nan, nan, 1, 2, 3] with counts [0, 0, 2, 2, 1] (a
# hash-set artefact); locus gives PyTorch 2.x's sorted answer, NaNs last and each its own value.

# ---- median, kthvalue, mode ----
x = torch.tensor([[3., 1., 4., 1.], [5., 9., 2., 6.], [5., 3., 5., 8.]])
t("x.median()"); t("x.median(1)"); t("x.median(0, True)")
y = torch.tensor([[1., nan, 3., 2.], [nan, nan, 1., 0.]])
t("y.median()"); t("y.median(1)"); t("y.nanmedian()"); t("y.nanmedian(1)"); t("torch.tensor([nan, nan]).nanmedian()")
t("x.kthvalue(2)"); t("x.kthvalue(3, 0, True)"); t("y.kthvalue(4, 1)")
t("torch.tensor([4, 1, 3, 2]).median(0)")
t("torch.zeros(0).median()")
t("torch.tensor(5.).median(0)")
t("x.kthvalue(5)"); t("torch.zeros(2, 0).median(1)"); t("torch.zeros(2, 0).mode(1)")
z = torch.tensor([[1., 2., 2., 3., 3.], [4., 4., 1., 1., 0.], [7., 6., 5., 6., 7.]])
t("z.mode()"); t("z.mode(0)"); t("torch.tensor([3, 1, 3, 1, 2]).mode()")
a = torch.tensor([[3., 1., 4., 1.], [5., 9., 2., 6.]], requires_grad=True)
a.median().backward(); print('median grad', a.grad)
a.grad = None; a.median(1)[0].sum().backward(); print('median(1) grad', a.grad)
a.grad = None; a.kthvalue(2, 0)[0].sum().backward(); print('kthvalue grad', a.grad)
a.grad = None; a.mode(1)[0].sum().backward(); print('mode grad', a.grad)

# ---- quantile ----
x = torch.tensor([[0.5, -1., 2., 3.5], [4., 0., 1.5, -2.], [1., 1., 7., 2.5]], dtype=torch.float64)
t("x.quantile(0.3)"); t("x.quantile(0.3, 1)"); t("x.quantile(torch.tensor([0., 0.25, 0.9], dtype=torch.float64), 0)")
for m in ["lower", "higher", "midpoint", "nearest"]:
    t(f"x.quantile(0.4, 1, interpolation='{m}')")
t("x.quantile(0.5, 1, keepdim=True).shape")
t("x.quantile(torch.tensor([0.2, 0.8], dtype=torch.float64), None, True).shape")
t("x.quantile(torch.tensor([0.2, 0.8], dtype=torch.float64), 1, True).shape")
y = torch.tensor([[1., nan, 3., 2.], [nan, nan, nan, nan], [4., 0., 1., 5.]])
t("y.quantile(0.5, 1)"); t("y.nanquantile(0.5, 1)"); t("y.nanquantile(0.25)"); t("y.quantile(0.25)")
t("torch.tensor([1., 2., 3., 4.]).quantile(torch.tensor([0.125, 0.375, 0.625]), interpolation='nearest')")
t("torch.tensor([1, 2]).quantile(0.5)"); t("torch.tensor([1., 2.]).quantile(1.5)")
t("torch.tensor([1., 2.]).quantile(torch.tensor([0.5], dtype=torch.float64))")
t("torch.tensor([1., 2.]).quantile(0.5, interpolation='foo')"); t("torch.tensor([]).quantile(0.5)")
t("torch.tensor([1., 2.]).quantile(torch.tensor([[0.5]]))")
t("torch.tensor([1., 2.]).quantile(torch.tensor([0.5, 2.]))")
a = torch.tensor([[0.5, -1., 2., 3.5], [4., 0., 1.5, -2.]], requires_grad=True)
a.quantile(torch.tensor([0.3, 0.5]), 1).sum().backward(); print('quantile grad', a.grad)
a.grad = None; a.quantile(0.7).backward(); print('quantile(0.7) grad', a.grad)
t("torch.tensor(3.).quantile(0.5, 0, True)")

# ---- bincount, histc, bucketize, searchsorted ----
t("torch.bincount(torch.tensor([1, 3, 1, 0]))")
t("torch.bincount(torch.tensor([1, 3, 1, 0]), torch.tensor([.5, 1., 2., .25]), 6)")
t("torch.bincount(torch.tensor([1, 3, 1, 0]), torch.tensor([1, 2, 3, 4]))")
t("torch.bincount(torch.tensor([], dtype=torch.long), minlength=3)")
t("torch.bincount(torch.tensor([1, 2], dtype=torch.uint8))")
t("torch.bincount(torch.tensor([-1, 2]))"); t("torch.bincount(torch.tensor([1., 2.]))")
t("torch.bincount(torch.tensor([1, 2]), torch.tensor([1.]))"); t("torch.bincount(torch.tensor([1, 2]), minlength=-1)")
t("torch.histc(torch.tensor([1., 2., 1., 4., 2.5]), bins=4, min=0, max=3)")
t("torch.histc(torch.tensor([1., 2., 1., 4., 2.5]), bins=4)")
t("torch.histc(torch.tensor([2., 2.]), bins=4)")
t("torch.histc(torch.tensor([1., 2., 3.], dtype=torch.float64), bins=3, min=0, max=6)")
t("torch.histc(torch.tensor([]), bins=2)")
t("torch.histc(torch.tensor([1, 2, 3]), bins=3)"); t("torch.histc(torch.tensor([1., 2.]), bins=0)")
t("torch.histc(torch.tensor([1., 2.]), bins=2, min=3, max=1)")
t("torch.histc(torch.tensor([1., float('inf')]), bins=2)")
t("torch.bucketize(torch.tensor([[1., 5.], [3., 9.]]), torch.tensor([1., 3., 5., 7.]))")
t("torch.bucketize(torch.tensor([[1., 5.], [3., 9.]]), torch.tensor([1., 3., 5., 7.]), right=True)")
t("torch.bucketize(torch.tensor([1, 5, nan]), torch.tensor([1., 3., 5., 7.]), out_int32=True)")
t("torch.bucketize(3, torch.tensor([1., 3., 5., 7.]))")
t("torch.bucketize(torch.tensor([1, 4]), torch.tensor([[1., 3., 5., 7.]]))")
s = torch.tensor([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]])
v = torch.tensor([[3, 6, 9], [3, 6, 9]])
t("torch.searchsorted(s, v)"); t("torch.searchsorted(s, v, right=True)")
t("torch.searchsorted(torch.tensor([1, 3, 5, 7, 9]), v, side='right')")
t("torch.searchsorted(torch.tensor([1, 3, 5, 7, 9]), 5)")
t("torch.searchsorted(torch.tensor([9, 1, 7, 3, 5]), torch.tensor([3, 6]), sorter=torch.tensor([1, 3, 4, 2, 0]))")
t("torch.searchsorted(torch.tensor([1, 3, 5, 7, 9]), torch.tensor([3.5, 6]))")
t("torch.searchsorted(torch.tensor([[1, 3, 5, 7, 9]]), v)")
t("torch.searchsorted(torch.tensor([1, 3, 5, 7, 9]), torch.tensor([3, 6]), right=True, side='left')")
t("torch.searchsorted(torch.tensor([1, 3, 5, 7, 9]), torch.tensor([3, 6]), side='foo')")
t("torch.searchsorted(torch.tensor([1, 3, 5, 7, 9]), torch.tensor([3, 6]), sorter=torch.tensor([1, 3]))")
t("torch.searchsorted(torch.tensor(1), torch.tensor([3, 6]))")
