"""The seed's PyTorch LeNet/CIFAR-10 example runs *unchanged* under the magic
-- the loop MSAdapter users had to rewrite into ``value_and_grad`` -- and its
loss falls.

Only the data root differs, and ``download=False``: the test's CIFAR-10 files
are generated in the real format but cannot carry the real archive's
checksums, and with ``download=True`` unverified files are re-downloaded, as
torchvision does (there is no network here)."""

LENET = '''
class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        self.conv1 = nn.Conv2d(3, 16, 5)
        self.pool1 = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(16, 32, 5)
        self.pool2 = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(32*5*5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = self.pool1(x)
        x = F.relu(self.conv2(x))
        x = self.pool2(x)
        x = x.view(-1, 32*5*5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x
'''


def test_seed_pytorch_training_loop_runs_unchanged_and_loss_falls(run, ip, cifar_root):
    run(f"""%%torch_on_ascend --no-analyze
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms
{LENET}
class config_args:
    device = "cuda" if torch.cuda.is_available() else "cpu"

criterion = nn.CrossEntropyLoss()
transform = transforms.Compose(
    [transforms.ToTensor(),
     transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])
train_set = datasets.CIFAR10(root=r'{cifar_root}', train=True, download=False, transform=transform)
train_data = DataLoader(train_set, batch_size=32, shuffle=True, num_workers=2, drop_last=True)
torch.manual_seed(0)
net = LeNet().to(config_args.device)
optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9, weight_decay=0.0005)
net.train()
epochs = 3
epoch_losses = []
for i in range(epochs):
    total = 0.0
    for X, y in train_data:
        X, y = X.to(config_args.device), y.to(config_args.device)
        out = net(X)
        loss = criterion(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    epoch_losses.append(total / len(train_data))
    print("------>epoch:{{}}, loss:{{:.6f}}".format(i, loss))
""")
    losses = ip.user_ns["epoch_losses"]
    assert len(losses) == 3
    assert losses[0] > losses[1] > losses[2], losses
