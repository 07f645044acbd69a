// dmlcl from C++: your own OpenCL buffers, dmlcl_operator_enqueue() with an event, and the
// kernel time from the event's profiling counters. RAII wrappers release everything.
//
//     c++ example.cpp $(pkg-config --cflags --libs dmlcl OpenCL) -o example_cpp
//
// RESAMPLE1 (linear, pixel centres) doubles a 2x3 image to 4x6; when this device does
// not support it the example says so and falls back to REVERSE_SUBSEQUENCES.
#include <dmlcl.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

// A failed dmlcl call as an exception carrying the library's message.
void check(dmlcl_status st, const char *what)
{
    if (st != DMLCL_SUCCESS)
        throw std::runtime_error(std::string(what) + ": " + dmlcl_status_string(st) + ": " +
                                 dmlcl_last_error());
}

void check_cl(cl_int err, const char *what)
{
    if (err != CL_SUCCESS)
        throw std::runtime_error(std::string(what) + " failed with OpenCL error " +
                                 std::to_string(err));
}

struct ContextDeleter { void operator()(dmlcl_context *c) const { dmlcl_context_release(c); } };
struct OperatorDeleter { void operator()(dmlcl_operator *o) const { dmlcl_operator_release(o); } };
struct MemDeleter { void operator()(cl_mem m) const { clReleaseMemObject(m); } };
struct EventDeleter { void operator()(cl_event e) const { clReleaseEvent(e); } };
using Context = std::unique_ptr<dmlcl_context, ContextDeleter>;
using Operator = std::unique_ptr<dmlcl_operator, OperatorDeleter>;
using Buffer = std::unique_ptr<std::remove_pointer<cl_mem>::type, MemDeleter>;
using Event = std::unique_ptr<std::remove_pointer<cl_event>::type, EventDeleter>;

Buffer make_buffer(cl_context ctx, cl_mem_flags flags, size_t bytes, const void *init)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(ctx, flags | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              const_cast<void *>(init), &err);
    check_cl(err, "clCreateBuffer");
    return Buffer(m);
}

// Runs op on device buffers holding `inputs`, returns the output, prints the kernel time.
template <typename Out>
std::vector<Out> run(const Context &ctx, const Operator &op,
                     const std::vector<std::pair<const void *, size_t>> &inputs, size_t out_count)
{
    cl_context cl = dmlcl_context_cl_context(ctx.get());
    std::vector<Buffer> in_bufs;
    std::vector<dmlcl_buffer_binding> in_bind;
    for (const auto &in : inputs) {
        in_bufs.push_back(make_buffer(cl, CL_MEM_READ_ONLY, in.second, in.first));
        in_bind.push_back({in_bufs.back().get(), 0, 0}); // offset 0, size 0 = whole buffer
    }
    std::vector<Out> out(out_count);
    Buffer out_buf = make_buffer(cl, CL_MEM_WRITE_ONLY, out.size() * sizeof(Out), nullptr);
    dmlcl_buffer_binding out_bind = {out_buf.get(), 0, 0};
    cl_event raw = nullptr;
    check(dmlcl_operator_enqueue(op.get(), in_bind.data(), (uint32_t)in_bind.size(), &out_bind,
                                 1, 0, nullptr, &raw),
          "dmlcl_operator_enqueue");
    Event done(raw);
    check_cl(clEnqueueReadBuffer(dmlcl_context_queue(ctx.get()), out_buf.get(), CL_TRUE, 0,
                                 out.size() * sizeof(Out), out.data(), 1, &raw, nullptr),
             "clEnqueueReadBuffer");
    cl_ulong start = 0, end = 0; // the context's own queue has profiling enabled
    if (clGetEventProfilingInfo(raw, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(raw, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) ==
            CL_SUCCESS)
        std::printf("kernel time: %.3f ms\n", (end - start) * 1e-6);
    return out;
}

bool resample(const Context &ctx)
{
    const uint32_t in_sizes[4] = {1, 1, 2, 3}, out_sizes[4] = {1, 1, 4, 6};
    const float scales[4] = {1, 1, 2, 2}, in_off[4] = {0.5f, 0.5f, 0.5f, 0.5f},
                out_off[4] = {-0.5f, -0.5f, -0.5f, -0.5f};
    const std::vector<float> image = {0, 1, 4, 2, 3, -1};
    dmlcl_tensor_desc in = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4, in_sizes, nullptr, 0};
    dmlcl_tensor_desc out = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, nullptr, 0};
    dmlcl_resample1_desc rd = {&in, &out, DMLCL_INTERPOLATION_MODE_LINEAR, 4, scales, in_off,
                               out_off};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &rd};
    dmlcl_operator *raw = nullptr;
    dmlcl_status st = dmlcl_operator_create(ctx.get(), &od, &raw);
    if (st == DMLCL_UNSUPPORTED) {
        std::printf("RESAMPLE1 not supported here: %s\n", dmlcl_last_error());
        return false;
    }
    check(st, "dmlcl_operator_create(RESAMPLE1)");
    Operator op(raw);
    std::printf("RESAMPLE1 linear 2x3 -> 4x6, plan: %s\n", dmlcl_operator_plan(op.get()));
    std::vector<float> y = run<float>(ctx, op, {{image.data(), image.size() * sizeof(float)}}, 24);
    for (size_t i = 0; i < y.size(); i++)
        std::printf("%7.4g%s", y[i], i % 6 == 5 ? "\n" : " ");
    // Corners repeat the edge elements; (0, 1) lies a quarter of the way from 0 to 1.
    if (y[0] != 0 || y[5] != 4 || y[18] != 2 || y[23] != -1 || y[1] != 0.25f)
        throw std::runtime_error("RESAMPLE1: unexpected output");
    return true;
}

void reverse(const Context &ctx)
{
    const uint32_t sizes[2] = {2, 5}, len_sizes[2] = {2, 1};
    const std::vector<int32_t> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const std::vector<uint64_t> lengths = {3, 5};
    dmlcl_tensor_desc t = {DMLCL_TENSOR_DATA_TYPE_INT32, 2, sizes, nullptr, 0};
    dmlcl_tensor_desc l = {DMLCL_TENSOR_DATA_TYPE_UINT64, 2, len_sizes, nullptr, 0};
    dmlcl_reverse_subsequences_desc rd = {&t, &l, &t, 1};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    dmlcl_operator *raw = nullptr;
    check(dmlcl_operator_create(ctx.get(), &od, &raw), "dmlcl_operator_create");
    Operator op(raw);
    std::vector<int32_t> y = run<int32_t>(
        ctx, op, {{x.data(), x.size() * 4}, {lengths.data(), lengths.size() * 8}}, 10);
    const std::vector<int32_t> want = {3, 2, 1, 4, 5, 10, 9, 8, 7, 6};
    for (size_t i = 0; i < y.size(); i++)
        std::printf("%3d%s", y[i], i % 5 == 4 ? "\n" : " ");
    if (y != want)
        throw std::runtime_error("REVERSE_SUBSEQUENCES: unexpected output");
}

} // namespace

int main()
{
    try {
        dmlcl_context *raw = nullptr;
        check(dmlcl_context_create_default(&raw), "dmlcl_context_create_default");
        Context ctx(raw);
        char name[256] = "";
        clGetDeviceInfo(dmlcl_context_device(ctx.get()), CL_DEVICE_NAME, sizeof name - 1, name,
                        nullptr);
        std::printf("dmlcl %s on %s\n", dmlcl_version(), name);
        resample(ctx);
        std::printf("REVERSE_SUBSEQUENCES on int32 with uint64 lengths {3, 5}:\n");
        reverse(ctx);
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "example_cpp: %s\n", e.what());
        return 1;
    }
}
