/* channel_chunks' test fixture shared by test_rewrites_chunks (the block emulator) and
 * test_rewrites_chunks_ptx (nvcc's float chains). Test code only. */
#ifndef HK_TESTS_CHUNKS_FIXTURE_H
#define HK_TESTS_CHUNKS_FIXTURE_H

/* mmcv's roi_align forward, as in bench/wild/src (the loop macro, bilinear_interpolate, the
 * kernel): the lockstep form (three stores, a select chain, the gathers in a __device__
 * function of the file, kept as a call: the max pooling selects its argmax by comparing
 * floats) */
static const char roi_align[] =
    "#include <float.h>\n"
    "#define CUDA_1D_KERNEL_LOOP(i, n)                              \\\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); \\\n"
    "       i += blockDim.x * gridDim.x)\n"
    "template <typename T>\n"
    "__device__ T bilinear_interpolate(const T* input, const int height,\n"
    "                                  const int width, T y, T x,\n"
    "                                  const int index /* index for debug only*/) {\n"
    "  if (y < -1.0 || y > height || x < -1.0 || x > width) return 0;\n"
    "  if (y <= 0) y = 0;\n"
    "  if (x <= 0) x = 0;\n"
    "  int y_low = (int)y;\n"
    "  int x_low = (int)x;\n"
    "  int y_high;\n"
    "  int x_high;\n"
    "  if (y_low >= height - 1) {\n"
    "    y_high = y_low = height - 1;\n"
    "    y = (T)y_low;\n"
    "  } else {\n"
    "    y_high = y_low + 1;\n"
    "  }\n"
    "  if (x_low >= width - 1) {\n"
    "    x_high = x_low = width - 1;\n"
    "    x = (T)x_low;\n"
    "  } else {\n"
    "    x_high = x_low + 1;\n"
    "  }\n"
    "  T ly = y - y_low;\n"
    "  T lx = x - x_low;\n"
    "  T hy = 1. - ly, hx = 1. - lx;\n"
    "  T v1 = input[y_low * width + x_low];\n"
    "  T v2 = input[y_low * width + x_high];\n"
    "  T v3 = input[y_high * width + x_low];\n"
    "  T v4 = input[y_high * width + x_high];\n"
    "  T w1 = hy * hx, w2 = hy * lx, w3 = ly * hx, w4 = ly * lx;\n"
    "  T val = (w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4);\n"
    "  return val;\n"
    "}\n"
    "template <typename T>\n"
    "__global__ void roi_align_forward_cuda_kernel(\n"
    "    const int nthreads, const T* input, const T* rois, T* output, T* argmax_y,\n"
    "    T* argmax_x, const int pooled_height, const int pooled_width,\n"
    "    const T spatial_scale, const int sampling_ratio,\n"
    "    const int pool_mode,  // 0 - max pool, 1 - avg pool\n"
    "    const bool aligned, const int channels, const int height, const int width) {\n"
    "  CUDA_1D_KERNEL_LOOP(index, nthreads) {\n"
    "    int pw = index % pooled_width;\n"
    "    int ph = (index / pooled_width) % pooled_height;\n"
    "    int c = (index / pooled_width / pooled_height) % channels;\n"
    "    int n = index / pooled_width / pooled_height / channels;\n"
    "    const T* offset_rois = rois + n * 5;\n"
    "    int roi_batch_ind = offset_rois[0];\n"
    "    T offset = aligned ? (T)0.5 : (T)0.0;\n"
    "    T roi_start_w = offset_rois[1] * spatial_scale - offset;\n"
    "    T roi_start_h = offset_rois[2] * spatial_scale - offset;\n"
    "    T roi_end_w = offset_rois[3] * spatial_scale - offset;\n"
    "    T roi_end_h = offset_rois[4] * spatial_scale - offset;\n"
    "    T roi_width = roi_end_w - roi_start_w;\n"
    "    T roi_height = roi_end_h - roi_start_h;\n"
    "    if (!aligned) {  // for backward-compatibility only\n"
    "      roi_width = max(roi_width, (T)1.);\n"
    "      roi_height = max(roi_height, (T)1.);\n"
    "    }\n"
    "    T bin_size_h = static_cast<T>(roi_height) / static_cast<T>(pooled_height);\n"
    "    T bin_size_w = static_cast<T>(roi_width) / static_cast<T>(pooled_width);\n"
    "    const T* offset_input =\n"
    "        input + (roi_batch_ind * channels + c) * height * width;\n"
    "    int roi_bin_grid_h =\n"
    "        (sampling_ratio > 0)\n"
    "            ? sampling_ratio\n"
    "            : static_cast<int>(ceilf(roi_height / pooled_height));\n"
    "    int roi_bin_grid_w =\n"
    "        (sampling_ratio > 0)\n"
    "            ? sampling_ratio\n"
    "            : static_cast<int>(ceilf(roi_width / pooled_width));\n"
    "    if (pool_mode == 0) {\n"
    "      T maxval = -FLT_MAX;\n"
    "      T maxidx_y = -1.f, maxidx_x = -1.f;\n"
    "      for (int iy = 0; iy < roi_bin_grid_h; iy++) {\n"
    "        const T y = roi_start_h + ph * bin_size_h +\n"
    "                    static_cast<T>(iy + .5f) * bin_size_h /\n"
    "                        static_cast<T>(roi_bin_grid_h);\n"
    "        for (int ix = 0; ix < roi_bin_grid_w; ix++) {\n"
    "          const T x = roi_start_w + pw * bin_size_w +\n"
    "                      static_cast<T>(ix + .5f) * bin_size_w /\n"
    "                          static_cast<T>(roi_bin_grid_w);\n"
    "          T val =\n"
    "              bilinear_interpolate(offset_input, height, width, y, x, index);\n"
    "          if (val > maxval) {\n"
    "            maxval = val;\n"
    "            maxidx_y = y;\n"
    "            maxidx_x = x;\n"
    "          }\n"
    "        }\n"
    "      }\n"
    "      output[index] = maxval;\n"
    "      argmax_y[index] = maxidx_y;\n"
    "      argmax_x[index] = maxidx_x;\n"
    "    } else if (pool_mode == 1) {\n"
    "      const T count = max(roi_bin_grid_h * roi_bin_grid_w, 1);\n"
    "      T output_val = 0.;\n"
    "      for (int iy = 0; iy < roi_bin_grid_h; iy++) {\n"
    "        const T y = roi_start_h + ph * bin_size_h +\n"
    "                    static_cast<T>(iy + .5f) * bin_size_h /\n"
    "                        static_cast<T>(roi_bin_grid_h);\n"
    "        for (int ix = 0; ix < roi_bin_grid_w; ix++) {\n"
    "          const T x = roi_start_w + pw * bin_size_w +\n"
    "                      static_cast<T>(ix + .5f) * bin_size_w /\n"
    "                          static_cast<T>(roi_bin_grid_w);\n"
    "          T val =\n"
    "              bilinear_interpolate(offset_input, height, width, y, x, index);\n"
    "          output_val += val;\n"
    "        }\n"
    "      }\n"
    "      output[index] = output_val / count;\n"
    "    }\n"
    "  }\n"
    "}\n";

/* channel_chunks applied to bench/wild's kernel kname of id (its own spec) on a device of sm
 * SMs of warps warps each: fx loaded (unload), *sp (spec_free) and *r (rw_result_free) set.
 * false, with nothing to free, when the wild source is not extracted (the caller returns). */
static inline bool chunks_on_wild(const char *id, const char *kname, int sm, int warps,
                                  fixture *fx, spec **sp, rw_result *r)
{
    if (!rwf_load_wild(id, fx))
        return false;
    char path[700];
    snprintf(path, sizeof path, HK_TEST_DATA "/../../bench/wild/specs/%s.bench.json", id);
    spec_diags dg = {0};
    *sp = NULL;
    assert_int_equal(spec_load(path, sp, &dg), HK_OK);
    spec_diags_free(&dg);
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = kernel(fx, kname),
                      .spec = *sp, .sm_count = sm, .warps_per_sm = warps};
    assert_int_equal(rw_apply_named("channel_chunks", &ctx, NULL, r, NULL), HK_OK);
    return true;
}

#endif
