"""``DataLoader`` with PyTorch semantics, including real worker processes.

Workers (``num_workers > 0``) are forked processes (``spawn`` where fork is
unavailable).  Under MindSpore's asynchronous launch kernels hang in a forked
child (synchronous launch, msnb's default on small CPU hosts, is fine), so
workers only call ``dataset[i]`` and ship samples as numpy; the main process rebuilds adapter
tensors and runs ``collate_fn``.  Batches come back in sampler order, as in
PyTorch.  Datasets whose ``__getitem__`` runs adapter tensor ops (other than
``TensorDataset``/``Subset``/``ConcatDataset``, which are handled) must use
``num_workers=0``.  ``persistent_workers`` and ``pin_memory`` are accepted;
workers are started per epoch.

Workers never outlive the process that made them: on Linux each asks the
kernel for ``SIGKILL`` when its parent dies (``prctl(PR_SET_PDEATHSIG)``,
set only when the loader runs on the main thread, since the signal follows
the forking thread), and, as PyTorch's worker loop does, every worker
checks its parent's pid whenever it has waited ``_WATCHDOG_S`` seconds for
work and exits once the parent is gone.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import queue
import random
import signal
import sys
import threading
import traceback

import numpy as np

from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _new_seed
from ._utils.collate import default_collate, default_convert
from ._tensor_bridge import to_numpy_tree, from_numpy_tree

__all__ = ["DataLoader", "get_worker_info"]

_worker_info = None
_WATCHDOG_S = 1.0  # how often an idle worker checks that its parent is alive
_PR_SET_PDEATHSIG = 1


class WorkerInfo:
    def __init__(self, id, num_workers, seed, dataset):  # noqa: A002 - PyTorch's field name
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed})"


def get_worker_info():
    """In a DataLoader worker: its ``WorkerInfo`` (id, num_workers, seed, dataset); else None."""
    return _worker_info


class _Stop:
    pass


class _Error:
    def __init__(self, text):
        self.text = text


def _die_with_parent(parent_pid, pdeathsig):
    """Have the kernel kill this worker when its parent dies (Linux), and exit
    now if the parent already died before that was set."""
    if pdeathsig and sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no prctl: the pid watchdog below still ends the worker
            pass
    if os.getppid() != parent_pid:
        os._exit(0)


def _next_task(index_q, parent_pid):
    """The next task, or None once the parent is gone (checked every ``_WATCHDOG_S``)."""
    while True:
        try:
            return index_q.get(timeout=_WATCHDOG_S)
        except queue.Empty:
            if os.getppid() != parent_pid:
                return None


def _worker_loop(dataset, index_q, result_q, worker_id, num_workers, seed, init_fn, iterable, auto_batch,
                 batch_size, drop_last, parent_pid=None, pdeathsig=False):
    global _worker_info
    if parent_pid is not None:
        _die_with_parent(parent_pid, pdeathsig)
    _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
    random.seed(seed)
    np.random.seed(seed % 2 ** 32)
    it = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        if iterable:
            it = iter(dataset)
    except Exception:  # noqa: BLE001 - reported to the main process
        result_q.put((-1, _Error(traceback.format_exc())))
        return
    while True:
        task = index_q.get() if parent_pid is None else _next_task(index_q, parent_pid)
        if task is None:
            return
        idx, indices = task
        try:
            if iterable:
                if auto_batch:
                    samples = []
                    for _ in range(batch_size):
                        try:
                            samples.append(next(it))
                        except StopIteration:
                            break
                    if not samples or (drop_last and len(samples) < batch_size):
                        data = _Stop()
                    else:
                        data = to_numpy_tree(samples)
                else:
                    try:
                        data = to_numpy_tree(next(it))
                    except StopIteration:
                        data = _Stop()
            elif auto_batch:
                data = to_numpy_tree([dataset[i] for i in indices])
            else:
                data = to_numpy_tree(dataset[indices])
        except Exception:  # noqa: BLE001
            data = _Error(f"Caught exception in DataLoader worker process {worker_id}:\n"
                          + traceback.format_exc())
        result_q.put((idx, data))


class DataLoader:
    """msnb implementation of ``torch.utils.data.DataLoader``."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None,
                 persistent_workers=False, pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing. Let "
                             "num_workers > 0 to enable multiprocessing.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset, self.num_workers, self.timeout = dataset, num_workers, timeout
        self.prefetch_factor = 2 if prefetch_factor is None and num_workers > 0 else prefetch_factor
        self.pin_memory, self.worker_init_fn, self.generator = pin_memory, worker_init_fn, generator
        self.persistent_workers, self.multiprocessing_context = persistent_workers, multiprocessing_context
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, "
                                 f"but got shuffle={shuffle}")
            if sampler is not None or batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler/batch_sampler")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (self._iterable and self.batch_size is not None)

    @property
    def _index_sampler(self):
        return self.batch_sampler if self.batch_sampler is not None else self.sampler

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)

    def __iter__(self):
        # PyTorch draws the workers' base seed when the iterator is made, before the sampler draws
        base_seed = _new_seed(self.generator)
        if self.num_workers == 0:
            return self._single()
        return self._multi(base_seed)

    # --- single process ----------------------------------------------------
    def _single(self):
        if self._iterable:
            it = iter(self.dataset)
            if not self._auto_collation:
                for x in it:
                    yield self.collate_fn(x)
                return
            while True:
                batch = []
                for _ in range(self.batch_size):
                    try:
                        batch.append(next(it))
                    except StopIteration:
                        break
                if not batch or (self.drop_last and len(batch) < self.batch_size):
                    return
                yield self.collate_fn(batch)
        for indices in self._index_sampler:
            if self._auto_collation:
                yield self.collate_fn([self.dataset[i] for i in indices])
            else:
                yield self.collate_fn(self.dataset[indices])

    # --- worker processes --------------------------------------------------
    def _context(self):
        ctx = self.multiprocessing_context
        if isinstance(ctx, str):
            return multiprocessing.get_context(ctx)
        if ctx is not None:
            return ctx
        methods = multiprocessing.get_all_start_methods()
        return multiprocessing.get_context("fork" if "fork" in methods else None)

    def _multi(self, base_seed):
        if hasattr(self.dataset, "_prepare_for_workers"):
            self.dataset._prepare_for_workers()
        ctx = self._context()
        result_q = ctx.Queue()
        index_qs, workers = [], []
        pdeathsig = threading.current_thread() is threading.main_thread()
        for wid in range(self.num_workers):
            iq = ctx.Queue()
            p = ctx.Process(target=_worker_loop, daemon=True,
                            args=(self.dataset, iq, result_q, wid, self.num_workers, base_seed + wid,
                                  self.worker_init_fn, self._iterable, self._auto_collation, self.batch_size,
                                  self.drop_last, os.getpid(), pdeathsig))
            p.start()
            index_qs.append(iq)
            workers.append(p)
        try:
            yield from self._drive(index_qs, workers, result_q)
        finally:
            for iq in index_qs:
                try:
                    iq.put(None)
                except Exception:  # noqa: BLE001
                    pass
            for p in workers:
                p.join(timeout=5)
                if p.is_alive():
                    p.terminate()
                    p.join()
            result_q.cancel_join_thread()
            for iq in index_qs:
                iq.cancel_join_thread()

    def _drive(self, index_qs, workers, result_q):
        n = self.num_workers
        active = [True] * n
        tasks = iter(self._index_sampler) if not self._iterable else None
        send_idx = rcvd_idx = 0
        task_worker = {}
        pending = {}
        next_worker = 0
        exhausted = False

        def put_one():
            nonlocal send_idx, next_worker, exhausted
            if exhausted:
                return False
            for _ in range(n):
                w = next_worker
                next_worker = (next_worker + 1) % n
                if active[w]:
                    break
            else:
                exhausted = True
                return False
            if tasks is not None:
                try:
                    indices = next(tasks)
                except StopIteration:
                    exhausted = True
                    return False
            else:
                indices = None
            index_qs[w].put((send_idx, indices))
            task_worker[send_idx] = w
            send_idx += 1
            return True

        for _ in range(self.prefetch_factor * n):
            if not put_one():
                break
        while rcvd_idx < send_idx:
            while rcvd_idx not in pending:
                try:
                    idx, data = result_q.get(timeout=self.timeout if self.timeout > 0 else 5.0)
                except queue.Empty:
                    if self.timeout > 0:
                        raise RuntimeError(f"DataLoader timed out after {self.timeout} seconds") from None
                    dead = [i for i, p in enumerate(workers) if not p.is_alive() and active[i]]
                    if dead:
                        raise RuntimeError(f"DataLoader worker(s) {dead} exited unexpectedly "
                                           f"(exit codes {[workers[i].exitcode for i in dead]})") from None
                    continue
                if isinstance(data, _Error):
                    raise RuntimeError(data.text)
                pending[idx] = data
            data = pending.pop(rcvd_idx)
            w = task_worker.pop(rcvd_idx)
            rcvd_idx += 1
            if isinstance(data, _Stop):
                active[w] = False
                if not any(active):
                    return
                put_one()
                continue
            put_one()
            yield self.collate_fn(from_numpy_tree(data))
