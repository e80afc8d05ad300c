"""Issue 3: semaphores stored in objects (descriptor classes, dataclass scratch, objects
whose fields are declared where we cannot see them)."""

from .helpers import analyze, found, line_of, text_at

HEAD = """
import dataclasses
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

DMA = pltpu.SemaphoreType.DMA
VMEM = pltpu.VMEM((8, 128), jnp.float32)
OUT = jax.ShapeDtypeStruct((8, 128), jnp.float32)
"""

DESCRIPTOR = HEAD + """
class MultiPageAsyncCopyDescriptor:
    \"\"\"Copies pages of a paged KV cache into a VMEM buffer (paged-attention style).\"\"\"

    def __init__(self, pages_hbm_ref, vmem_buffer, sem, page_indices, num_pages):
        self._pages_hbm_ref = pages_hbm_ref
        self._vmem_buffer = vmem_buffer
        self._sem = sem
        self._page_indices = page_indices
        self._num_pages = num_pages

    def _copy(self, i):
        page = self._page_indices[i]
        return pltpu.make_async_copy(self._pages_hbm_ref.at[page], self._vmem_buffer.at[i], self._sem)

    def start(self):
        for i in range(self._num_pages):
            self._copy(i).start()

    def wait_and_get_loaded(self):
        for i in range(self._num_pages):
            self._copy(i).wait()
        return self._vmem_buffer[...]


def kernel(page_indices_ref, k_pages_hbm, o_ref, k_vmem, k_sems):
    buffer_index = pl.program_id(0) % 2
    copy = MultiPageAsyncCopyDescriptor(k_pages_hbm, k_vmem.at[buffer_index], {sem},
                                        page_indices_ref, 4)
    copy.start()
    o_ref[...] = copy.wait_and_get_loaded()[0]


def run(page_indices, k_pages):
    return pl.pallas_call(
        kernel, out_shape=OUT,
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1, grid=(4,),
            in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
            scratch_shapes=[pltpu.VMEM((2, 4, 8, 128), jnp.float32), DMA((2,))]),
    )(page_indices, k_pages)
"""


def test_descriptor_class_with_indexed_semaphore_is_clean():
    assert found("\n" + DESCRIPTOR.format(sem="k_sems.at[buffer_index]")) == []


def test_descriptor_class_given_the_whole_array_is_flagged_at_the_constructor():
    src = "\n" + DESCRIPTOR.format(sem="k_sems")
    (f,) = analyze(src)
    assert (f.span.line + 1, f.code, f.shape) == (line_of(src, "buffer_index], k_sems,"), "PAL001", (2,))
    assert text_at(src, f.span) == "k_sems"
    # The related information points at the DMA inside the class.
    uses = [r for r in f.related if "uses the semaphore here" in r.message]
    assert [r.span.line + 1 for r in uses] == [line_of(src, "self._vmem_buffer.at[i], self._sem)")]


def test_method_storing_a_view_later():
    src = HEAD + """
class Pipeline:
    def __init__(self, sems):
        self.sems = sems
        self.slot = 0

    def sem(self):
        return self.sems.at[self.slot]

    def fetch(self, src, dst):
        pltpu.make_async_copy(src, dst, self.sem()).start()

    def fetch_all(self, src, dst):
        pltpu.make_async_copy(src, dst, self.sems).start()


def kernel(x_hbm, o_ref, sems):
    p = Pipeline(sems)
    p.fetch(x_hbm, o_ref)
    p.fetch_all(x_hbm, o_ref)


def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    (f,) = analyze(src)
    # The class indexes the array itself (`self.sems.at[self.slot]`), so it expects the
    # array: the bug is the whole use in `fetch_all`, not the constructor argument.
    assert (f.span.line + 1, f.code, f.shape) == (line_of(src, "dst, self.sems)"), "PAL001", (2,))
    assert text_at(src, f.span) == "self.sems"


def test_registered_dataclass_scratch():
    src = HEAD + """
@functools.partial(jax.tree_util.register_dataclass, data_fields=["buf", "sem", "done"], meta_fields=[])
@dataclasses.dataclass
class Scratch:
    buf: object
    sem: object
    done: object


def kernel(x_hbm, o_ref, scratch):
    pltpu.async_copy(x_hbm, scratch.buf, scratch.sem.at[1]).wait()
    pl.semaphore_signal(scratch.done)
    pltpu.async_copy(x_hbm, scratch.buf, scratch.sem).wait()


def run(x):
    return pl.pallas_call(
        kernel, out_shape=OUT,
        scratch_shapes=[Scratch(buf=VMEM, sem=DMA((2,)), done=pltpu.SemaphoreType.REGULAR)])(x)
"""
    assert found(src) == [(line_of(src, "scratch.buf, scratch.sem).wait()"), "PAL001", (2,))]


def test_positional_dataclass_scratch():
    src = HEAD + """
@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Sems:
    send: jax.Ref
    recv: jax.Ref


def kernel(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, sems.send).wait()
    pltpu.async_copy(x_hbm, o_ref, sems.recv).wait()


def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[Sems(DMA, DMA((4,)))])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, sems.recv)"), "PAL001", (4,))]


def test_fields_jax_declares_are_known():
    """A `BufferedRef` subclass (imported from JAX's internals): its semaphore fields are
    the ones JAX declares, one DMA semaphore per buffer, so the whole `sem_recvs` given
    to a DMA start is the error JAX raises (`test_library_classes.py`)."""
    src = HEAD + """
from jax._src.pallas.mosaic.pipeline import BufferedRef


class MyRef(BufferedRef):
    def copy_in(self, src_ref, slot):
        pltpu.make_async_copy(src_ref, self.window_ref.at[slot], self.sem_recvs).start()

    def wait_in(self, src_ref, slot):
        sem = self.sem_recvs.at[slot]
        pltpu.make_async_copy(src_ref, self.window_ref.at[slot], sem).wait()
"""
    assert found(src) == [(line_of(src, "self.sem_recvs).start()"), "PAL001", ("buffer_count",))]


def test_object_from_an_unknown_factory_is_silent():
    src = HEAD + """
from mylib.pipeline import make_buffers


def kernel(x_hbm, o_ref, sems):
    bufs = make_buffers(sems)
    pltpu.make_async_copy(x_hbm, o_ref, bufs.sem).start()
    pltpu.make_async_copy(x_hbm, o_ref, bufs.sems_for(0)).start()


def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == []


def test_methods_inherited_from_a_base_class_in_the_same_file():
    src = HEAD + """
class Base:
    def __init__(self, src, dst, sem):
        self.src, self.dst, self.sem = src, dst, sem

    def start(self):
        pltpu.make_async_copy(self.src, self.dst, self.sem).start()


class Derived(Base):
    pass


def kernel(x_hbm, o_ref, sems):
    Derived(x_hbm, o_ref, sems.at[0]).start()
    Derived(x_hbm, o_ref, sems).start()


def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "Derived(x_hbm, o_ref, sems).start()"), "PAL001", (2,))]


def test_super_init_stores_the_semaphore():
    src = HEAD + """
class Base:
    def __init__(self, sem):
        self.sem = sem


class Copy(Base):
    def __init__(self, src, dst, sem):
        super().__init__(sem)
        self.src, self.dst = src, dst

    def start(self):
        pltpu.make_async_copy(self.src, self.dst, self.sem).start()


def kernel(x_hbm, o_ref, sems):
    Copy(x_hbm, o_ref, sems.at[1]).start()
    Copy(x_hbm, o_ref, sems).start()


def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "Copy(x_hbm, o_ref, sems).start()"), "PAL001", (2,))]


def test_property_returning_a_view_or_the_array():
    src = HEAD + """
class Buffers:
    def __init__(self, sems, slot):
        self._sems = sems
        self._slot = slot

    @property
    def sem(self):
        return self._sems.at[self._slot]

    @property
    def all_sems(self):
        return self._sems


def kernel(x_hbm, o_ref, sems):
    b = Buffers(sems, 0)
    pltpu.async_copy(x_hbm, o_ref, b.sem).wait()
    pltpu.async_copy(x_hbm, o_ref, b.all_sems).wait()


def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    # The class indexes the array itself (`sem`), so the whole use is the bug.
    assert found(src) == [(line_of(src, "o_ref, b.all_sems)"), "PAL001", (2,))]


def test_dataclass_with_methods_building_copies():
    src = HEAD + """
@dataclasses.dataclass(frozen=True)
class Pipe:
    src: object
    dst: object
    sems: object

    def copy(self, slot):
        return pltpu.make_async_copy(self.src, self.dst, self.sems.at[slot])

    def copy_all(self):
        return pltpu.make_async_copy(self.src, self.dst, self.sems)


def kernel(x_hbm, o_ref, sems):
    p = Pipe(x_hbm, o_ref, sems)
    p.copy(0).start()
    p.copy_all().start()


def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert [(code, shape) for _, code, shape in found(src)] == [("PAL001", (2,))]


def test_descriptor_class_collecting_copies_in_a_list():
    """The ragged-paged-attention descriptor: copies built in `__init__` with
    `self._copies.append(...)`, started later by iterating the list."""
    src = HEAD + """
class MultiPageCopy:
    def __init__(self, pages_hbm, buf, sem, num_pages):
        self._copies = []
        for i in range(num_pages):
            self._copies.append(pltpu.make_async_copy(pages_hbm.at[i], buf.at[i], sem))

    def start(self):
        for c in self._copies:
            c.start()


def kernel(x_hbm, o_ref, buf, sems):
    MultiPageCopy(x_hbm, buf, sems.at[0], 4).start()
    MultiPageCopy(x_hbm, buf, sems, 4).start()


def run(x):
    return pl.pallas_call(kernel, out_shape=OUT,
                          scratch_shapes=[pltpu.VMEM((4, 8, 128), jnp.float32), DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "MultiPageCopy(x_hbm, buf, sems, 4)"), "PAL001", (2,))]


def test_callable_object_as_the_kernel():
    src = HEAD + """
class CopyKernel:
    def __init__(self, nslots):
        self.nslots = nslots

    def __call__(self, x_hbm, o_ref, sems):
        pltpu.async_copy(x_hbm, o_ref, sems.at[self.nslots - 1]).wait()
        pltpu.async_copy(x_hbm, o_ref, sems).wait()


def run(x):
    return pl.pallas_call(CopyKernel(2), out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, sems).wait()"), "PAL001", (2,))]
