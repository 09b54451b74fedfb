"""Every code sample of the MSAdapter guide (sections 2, 3.4, 3.5 and 4, in
MSAdapter's spelling) runs under ``%%torch_on_ascend`` as written -- the old
adapter's users keep their code."""

from .test_seed_pytorch_loop import LENET

import numpy as np

IMPORTS = """%%torch_on_ascend --no-analyze
import numpy as np
import mindspore as ms
import msadapter.pytorch as torch
import msadapter.pytorch.nn as nn
import msadapter.pytorch.nn.functional as F
from msadapter.pytorch.utils.data import DataLoader
from msadapter.torchvision import datasets, transforms
"""


def _data(root):
    return f"""
class config_args:
    device = "cpu"
criterion = nn.CrossEntropyLoss()
transform = transforms.Compose(
    [transforms.ToTensor(),
     transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])
train_set = datasets.CIFAR10(root=r'{root}', train=True, download=False, transform=transform)
train_data = DataLoader(train_set, batch_size=32, shuffle=True, num_workers=2, drop_last=True)
epochs = 1
"""


def test_section2_functional_training_with_value_and_grad(run, ip, cifar_root):
    run(IMPORTS + LENET + _data(cifar_root) + """
net = LeNet().to(config_args.device)
optimizer = ms.nn.SGD(net.trainable_params(), learning_rate=0.01, momentum=0.9, weight_decay=0.0005)

def forward_fn(data, label):
    logits = net(data)
    loss = criterion(logits, label)
    return loss, logits

grad_fn = ms.ops.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

def train_step(data, label):
    (loss, _), grads = grad_fn(data, label)
    optimizer(grads)
    return loss

net.train()
seen = []
for i in range(epochs):
    for X, y in train_data:
        X, y = X.to(config_args.device), y.to(config_args.device)
        res = train_step(X, y)
        seen.append(float(res.asnumpy()))
    print("------>epoch:{}, loss:{:.6f}".format(i, res.asnumpy()))
""")
    seen = ip.user_ns["seen"]
    assert len(seen) == 5 and all(np.isfinite(seen))


def test_section34_group_and_dynamic_learning_rates(run, ip):
    run(IMPORTS + LENET + """
net = LeNet()
conv_params = list(filter(lambda x: 'conv' in x.name, net.trainable_params()))
no_conv_params = list(filter(lambda x: 'conv' not in x.name, net.trainable_params()))
group_params = [{'params': conv_params, 'weight_decay': 0.01, 'lr': 0.001},
                {'params': no_conv_params, 'lr': 0.003}]
optim = ms.nn.Momentum(group_params, learning_rate=0.1, momentum=0.9, weight_decay=0.0)

def lr_cosine_policy(base_lr, warmup_length, epochs, iter_per_epoch):
    def _lr_fn(epoch):
        if epoch < warmup_length:
            lr = base_lr * (epoch + 1) / warmup_length
        else:
            e = epoch - warmup_length
            es = epochs - warmup_length
            lr = 0.5 * (1 + np.cos(np.pi * e / es)) * base_lr
        return lr
    output = []
    for epoch in range(0, epochs):
        lr = _lr_fn(epoch)
        for iter in range(iter_per_epoch):
            output.append(lr)
    return output

lr_scheduler = lr_cosine_policy(0.1, 2, 5, 3)
optimizer = ms.nn.SGD(net.trainable_params(), learning_rate=lr_scheduler, momentum=0.9, weight_decay=1e-4)
n_conv, n_other = len(conv_params), len(no_conv_params)
""")
    assert (ip.user_ns["n_conv"], ip.user_ns["n_other"]) == (4, 6)


def test_section35_model_train_and_train_one_step_cell(run, ip, cifar_root):
    run(IMPORTS + LENET + _data(cifar_root) + """
from mindspore.dataset import GeneratorDataset
from mindspore.train.callback import LossMonitor, TimeMonitor
model = LeNet()
criterion = nn.CrossEntropyLoss()
optimizer = ms.nn.SGD(model.trainable_params(), learning_rate=0.1, momentum=0.9, weight_decay=1e-4)
model = ms.Model(model, criterion, optimizer, metrics={'accuracy'})
dataset = GeneratorDataset(source=train_data, column_names=["data", "label"])
model.train(epochs, dataset, callbacks=[TimeMonitor(), LossMonitor()])

model = LeNet()
optimizer = ms.nn.SGD(model.trainable_params(), learning_rate=0.1, momentum=0.9, weight_decay=1e-4)
loss_net = ms.nn.WithLossCell(model, criterion)
train_net = ms.nn.TrainOneStepCell(loss_net, optimizer)
before = [p.asnumpy().copy() for p in model.trainable_params()]
for i in range(epochs):
    for X, y in train_data:
        loss = train_net(X, y)
moved = sum(float(np.abs(p.asnumpy() - b).max()) > 0 for p, b in zip(model.trainable_params(), before))
""")
    assert ip.user_ns["moved"] == 10


def test_section4_manual_adaptation_samples(run, ip, tmp_path):
    run(IMPORTS + f"""
from msadapter.pytorch.nn import Module, Linear, Flatten
from msadapter.torchvision.transforms import InterpolationMode

transform = transforms.Compose([transforms.Resize((224, 224), interpolation=InterpolationMode.BICUBIC),
                                transforms.ToTensor(),
                                transforms.Normalize(mean=[0.4914, 0.4822, 0.4465], std=[0.247, 0.2435, 0.2616])
                                ])
from PIL import Image
img = transform(Image.fromarray(np.random.default_rng(0).integers(0, 255, (32, 32, 3), dtype=np.uint8)))

class MLP(Module):
    def __init__(self):
        super(MLP, self).__init__()
        self.flatten = Flatten()
        self.line1 = Linear(in_features=1024, out_features=64)
        self.line2 = Linear(in_features=64, out_features=128, bias=False)
        self.line3 = Linear(in_features=128, out_features=10)
        self.phase = "train"  # MSAdapter users had to rename this

    def forward(self, inputs):
        x = self.flatten(inputs)
        x = self.line1(x)
        x = self.line2(x)
        x = self.line3(x)
        return x

mlp_out = MLP()(torch.randn(2, 32, 32))

class GdnFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, gamma, beta):
        ctx.save_for_backward(x, gamma, beta)
        return x * gamma + beta

    @staticmethod
    def backward(ctx, grad_output):
        x, gamma, beta = ctx.saved_variables
        return grad_output * gamma, (grad_output * x).sum(0), grad_output.sum(0)

x = torch.randn(4, 3, requires_grad=True)
gamma = torch.ones(3, requires_grad=True)
beta = torch.zeros(3, requires_grad=True)
GdnFunction.apply(x, gamma, beta).sum().backward()

r1 = torch.randint(10, (2, 2)); r2 = torch.arange(5); r3 = torch.normal(0.0, 1.0, (2, 3))

boxes = torch.arange(2 * 3 * 8, dtype=torch.float32).reshape(2, 3, 8) - 10
im_shape = torch.tensor([[5.0, 9.0], [5.0, 9.0]])
for i in range(2):
    boxes[i, :, 0::4].clamp_(0, im_shape[i, 1] - 1)

ms.context.set_context(device_target="CPU")
logits = ms.ops.relu(ms.Tensor(np.ones((2, 3), np.float32)))
logits = torch.cast_to_adapter_tensor(logits)
probs = torch.softmax(logits, 1)
class_names = ["a", "b", "c"]
labels = torch.tensor([1, 2])
label = f"{{class_names[labels[0]]}}: {{probs[0, 1]:.2f}}"
v = torch.autograd.Variable(torch.ones(2))
as_numpy = probs.numpy()

net = MLP()
torch.save(net.state_dict(), r'{tmp_path}/epoch1.pth')
net.load_state_dict(torch.load(r'{tmp_path}/epoch1.pth', from_torch=True), strict=True)
net.load_state_dict(torch.load(r'{tmp_path}/epoch1.pth'), strict=True)
""")
    ns = ip.user_ns
    assert tuple(ns["img"].shape) == (3, 224, 224)
    assert tuple(ns["mlp_out"].shape) == (2, 10)
    assert ns["x"].grad.tolist() == [[1.0, 1.0, 1.0]] * 4
    assert tuple(ns["r1"].shape) == (2, 2) and ns["r2"].tolist() == [0, 1, 2, 3, 4]
    b = ns["boxes"].numpy()
    assert b[:, :, 0::4].min() >= 0 and b[:, :, 0::4].max() <= 8 and b[0, 0, 1] == -9
    assert ns["label"] == "b: 0.33"
    assert ns["as_numpy"].shape == (2, 3)
