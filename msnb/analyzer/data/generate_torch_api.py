"""Regenerate ``torch_api.json``: the public names of real PyTorch.

Run manually with real torch installed (``python -m
msnb.analyzer.data.generate_torch_api``).  The analyzer only reads the JSON,
so neither CI nor users need torch.  The unsupported-api rule uses this list to
tell a real torch API (which the adapter may lack) from a user's own attribute
that merely sits on a torch-like name.

torchvision is taken from the installed package when importable; otherwise
from ``TORCHVISION_FALLBACK`` below, a hand-written list of the public names of
``torchvision.transforms`` / ``datasets`` / ``models`` / ``utils`` /
``io`` / ``ops`` (torchvision 0.28 documentation), recorded in the JSON as
``"torchvision_source": "hand-written"``.
"""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path

__all__ = ["collect", "main", "MODULES", "CLASSES_WITH_MEMBERS", "TORCHVISION_FALLBACK"]

OUT = Path(__file__).with_name("torch_api.json")

#: Modules whose public top-level functions / classes are listed.
MODULES = [
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.nn.utils",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.utils.data",
    "torch.autograd",
    "torch.cuda",
    "torch.cuda.amp",
    "torch.amp",
    "torch.backends.cudnn",
    "torch.distributed",
    "torch.multiprocessing",
    "torch.fft",
    "torch.linalg",
    "torch.special",
    "torch.accelerator",
    "torch.jit",
    "torch.testing",
]

#: Classes whose public methods / attributes are listed as ``Class.member``.
CLASSES_WITH_MEMBERS = ["torch.Tensor", "torch.nn.Module", "torch.optim.Optimizer"]

TORCHVISION_FALLBACK = {
    "torchvision.transforms": [
        "AugMix", "AutoAugment", "AutoAugmentPolicy", "CenterCrop", "ColorJitter", "Compose",
        "ConvertImageDtype", "ElasticTransform", "FiveCrop", "GaussianBlur", "Grayscale",
        "InterpolationMode", "Lambda", "LinearTransformation", "Normalize", "PILToTensor", "Pad",
        "RandAugment", "RandomAdjustSharpness", "RandomAffine", "RandomApply", "RandomAutocontrast",
        "RandomChoice", "RandomCrop", "RandomEqualize", "RandomErasing", "RandomGrayscale",
        "RandomHorizontalFlip", "RandomInvert", "RandomOrder", "RandomPerspective",
        "RandomPosterize", "RandomResizedCrop", "RandomRotation", "RandomSolarize",
        "RandomVerticalFlip", "Resize", "TenCrop", "ToPILImage", "ToTensor", "TrivialAugmentWide",
    ],
    "torchvision.transforms.functional": [
        "adjust_brightness", "adjust_contrast", "adjust_gamma", "adjust_hue", "adjust_saturation",
        "affine", "center_crop", "crop", "five_crop", "gaussian_blur", "hflip", "normalize", "pad",
        "perspective", "pil_to_tensor", "resize", "resized_crop", "rgb_to_grayscale", "rotate",
        "ten_crop", "to_grayscale", "to_pil_image", "to_tensor", "vflip",
    ],
    "torchvision.datasets": [
        "CIFAR10", "CIFAR100", "CelebA", "Cityscapes", "CocoCaptions", "CocoDetection",
        "DatasetFolder", "EMNIST", "FakeData", "FashionMNIST", "Flowers102", "Food101",
        "ImageFolder", "ImageNet", "KMNIST", "LSUN", "MNIST", "OxfordIIITPet", "Places365",
        "QMNIST", "SBDataset", "SVHN", "STL10", "VOCDetection", "VOCSegmentation", "VisionDataset",
    ],
    "torchvision.models": [
        "alexnet", "convnext_base", "convnext_small", "convnext_tiny", "densenet121",
        "densenet161", "densenet169", "densenet201", "efficientnet_b0", "efficientnet_b1",
        "efficientnet_v2_s", "get_model", "get_model_weights", "get_weight", "googlenet",
        "inception_v3", "list_models", "mnasnet1_0", "mobilenet_v2", "mobilenet_v3_large",
        "mobilenet_v3_small", "regnet_y_400mf", "resnet101", "resnet152", "resnet18", "resnet34",
        "resnet50", "resnext50_32x4d", "shufflenet_v2_x1_0", "squeezenet1_0", "squeezenet1_1",
        "swin_t", "vgg11", "vgg13", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn", "vit_b_16",
        "vit_b_32", "wide_resnet50_2", "ResNet", "VGG", "AlexNet", "MobileNetV2",
        "ResNet18_Weights", "ResNet50_Weights", "VGG16_Weights",
    ],
    "torchvision.utils": ["draw_bounding_boxes", "draw_segmentation_masks", "make_grid", "save_image"],
    "torchvision.io": ["decode_image", "read_image", "read_video", "write_jpeg", "write_png"],
    "torchvision.ops": ["batched_nms", "box_area", "box_iou", "nms", "roi_align", "roi_pool", "sigmoid_focal_loss"],
}


def _public(module) -> list[str]:
    names = getattr(module, "__all__", None) or dir(module)
    out = []
    for name in names:
        if name.startswith("_"):
            continue
        try:
            obj = getattr(module, name)
        except Exception:  # noqa: BLE001 - some lazy attributes raise on access
            continue
        if inspect.ismodule(obj):
            continue
        out.append(name)
    return sorted(set(out))


def collect() -> dict:
    """Return the JSON document: {"names": [...qualified names...], ...}."""
    import importlib

    import torch

    names: set[str] = set()
    for modname in MODULES:
        try:
            module = importlib.import_module(modname)
        except Exception as exc:  # noqa: BLE001 - report and continue
            print(f"skip {modname}: {exc}", file=sys.stderr)
            continue
        names.update(f"{modname}.{n}" for n in _public(module))
    for clsname in CLASSES_WITH_MEMBERS:
        modname, _, attr = clsname.rpartition(".")
        cls = getattr(importlib.import_module(modname), attr)
        names.add(clsname)
        names.update(f"{clsname}.{n}" for n in dir(cls) if not n.startswith("_"))
    tv_source = "hand-written"
    try:
        import torchvision  # noqa: F401

        tv_source = f"torchvision {torchvision.__version__}"
        for modname in TORCHVISION_FALLBACK:
            names.update(f"{modname}.{n}" for n in _public(importlib.import_module(modname)))
    except ImportError:
        for modname, members in TORCHVISION_FALLBACK.items():
            names.update(f"{modname}.{n}" for n in members)
    return {
        "torch_version": torch.__version__,
        "torchvision_source": tv_source,
        "modules": MODULES + sorted(TORCHVISION_FALLBACK),
        "names": sorted(names),
    }


def main() -> None:
    doc = collect()
    OUT.write_text(json.dumps(doc, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {len(doc['names'])} names to {OUT}")


if __name__ == "__main__":
    main()
