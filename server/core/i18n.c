/* The message table and the language choice (docs/i18n.md). The Chinese follows what
 * CUDA/DCU engineers in China say: 核函数, 加速比, 基线, 带宽, 屋顶线模型; names that are
 * the product's own (bench spec, episode ids, NVIDIA, DCU) stay as they are. */
#include "core/i18n.h"

#include "core/buf.h"
#include "core/hk.h"

#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hk_msg_entry {
    const char *name;
    bool format; /* a printf format (F), else plain text (M) */
    const char *text[HK_LANG_COUNT];
};

/* M: plain text, shown as it is ("% of roofline" is not a conversion). F: a printf
 * format, for hk_trf or a printf; its conversions are the same in every language. */
#define M(id, en, zh) [HK_MSG_##id] = {#id, false, {en, zh}}
#define F(id, en, zh) [HK_MSG_##id] = {#id, true, {en, zh}}

/* A gap in this table (an id with no row) reads as NULL: the unit test finds it. */
static const struct hk_msg_entry msgs[HK_MSG_COUNT] = {
    M(ACT_OPTIMIZE_NVIDIA, "Optimize for NVIDIA", "针对 NVIDIA 优化"),
    M(ACT_OPTIMIZE_DCU, "Optimize for DCU", "针对 DCU 优化"),
    F(ACT_OPTIMIZE_NVIDIA_WITH, "Optimize for NVIDIA with %s", "用 %s 针对 NVIDIA 优化"),
    M(ACT_CREATE_SPEC, "Create benchmark spec", "创建基准测试描述 (bench spec)"),
    M(ACT_SHOW_REPORT, "Show report", "查看报告"),
    F(ACT_APPLY_SPEEDUP, "Apply v%d (%.2fx%s)", "应用 v%d（加速比 %.2fx%s）"),
    F(ACT_APPLY, "Apply v%d%s", "应用 v%d%s"),
    M(LENS_OPTIMIZE_NVIDIA, "Optimize (NVIDIA)", "优化 (NVIDIA)"),
    M(LENS_OPTIMIZE_DCU, "Optimize (DCU)", "优化 (DCU)"),
    F(LENS_BEST_APPLY, "best %.2fx%s (v%d) - Apply", "最佳加速比 %.2fx%s (v%d) - 应用"),
    M(LENS_REPORT, "Report", "报告"),
    M(SIMULATED_WORD, " simulated", "，模拟"),
    M(SIMULATED_PAREN, " (simulated)", "（模拟）"),
    M(SIMULATED_GPU_PAREN, " (simulated GPU)", "（模拟 GPU）"),
    F(PROGRESS_TITLE, "Optimize %s (%s)", "优化核函数 %s (%s)"),
    M(PROGRESS_STARTING, "starting", "正在启动"),
    M(PROGRESS_STOPPING, "stopping", "正在停止"),
    M(PROGRESS_STOPPED, "stopped", "已停止"),
    M(PROGRESS_NO_GPU, "no GPU: stopping", "未找到 GPU：正在停止"),
    F(PROGRESS_DONE_BEST, "done: best %.2fx%s", "完成：最佳加速比 %.2fx%s"),
    M(PROGRESS_DONE_NONE, "done: no faster version found", "完成：未找到更快的版本"),
    F(PROGRESS_FAILED, "failed: %.480s", "失败：%.480s"),
    F(PROGRESS_SPEC_INFERRED, "spec inferred and saved to %s: %s",
      "已推断 bench spec 并保存到 %s：%s"),
    M(STAGE_INIT, "init", "初始化"),
    M(STAGE_SPEC, "spec", "bench spec"),
    M(STAGE_BASELINE, "baseline", "基线测量"),
    M(STAGE_OPTIMIZE, "optimize", "搜索优化"),
    M(STAGE_ACCURACY, "accuracy", "精度检查"),
    M(STAGE_VERIFY, "verify", "验证"),
    M(STAGE_REPORT, "report", "生成报告"),
    M(UNKNOWN_ERROR, "unknown error", "未知错误"),
    F(SHOW_OPTIMIZE_FAILED, "Optimize %s (%s) failed: %s", "优化核函数 %s (%s) 失败：%s"),
    F(DIAG_FAILED, "optimization failed: %.600s", "优化失败：%.600s"),
    F(DIAG_INTERRUPTED, "optimization was interrupted: %.600s", "优化被中断：%.600s"),
    M(DIAG_SEE_REPORT, "see the episode's report", "详见本次优化的报告"),
    M(DIAG_SIMULATED_PREFIX, "simulated GPU: ", "模拟 GPU："),
    F(DIAG_FASTER, "%.2fx faster version available", "有更快的版本可用，加速比 %.2fx"),
    F(DIAG_BANDWIDTH_SMALL, ", %.2g%% of peak bandwidth", "，达到峰值带宽的 %.2g%%"),
    F(DIAG_BANDWIDTH, ", %.0f%% of peak bandwidth", "，达到峰值带宽的 %.0f%%"),
    F(DIAG_ROOFLINE_SMALL, ", %.2g%% of the roofline bound", "，达到屋顶线模型上限的 %.2g%%"),
    F(DIAG_ROOFLINE, ", %.0f%% of the roofline bound", "，达到屋顶线模型上限的 %.0f%%"),
    F(DIAG_EPISODE, " (episode %lld)", "（优化任务 %lld）"),
    M(HOVER_OPTIMIZING, "Optimizing", "正在优化"),
    M(HOVER_SPEC_INFERRED, "Spec inferred", "已推断 bench spec"),
    M(HOVER_HISTORY, "Optimization history", "优化历史"),
    M(HOVER_HISTORY_SIMULATED, " (simulated GPU: not measured on hardware)",
      "（模拟 GPU：未在硬件上实测）"),
    M(HOVER_HISTORY_HEAD_MD,
      "\n| version | time | speedup | bandwidth | accuracy | engine | date |\n"
      "|---|---|---|---|---|---|---|\n",
      "\n| 版本 | 耗时 | 加速比 | 带宽 | 精度 | 引擎 | 日期 |\n"
      "|---|---|---|---|---|---|---|\n"),
    M(HOVER_HISTORY_HEAD_TEXT, "version  time  speedup  bandwidth  accuracy  engine  date\n",
      "版本  耗时  加速比  带宽  精度  引擎  日期\n"),
    M(REP_TITLE, "Hyper Kernel report",
      "Hyper Kernel 优化报告"),
    M(REP_SEP, ": ",
      "："),
    M(REP_SIM_BANNER, "Simulated GPU: every time, speedup and bandwidth below is simulated, not measured on hardware.",
      "模拟 GPU：以下所有时间、加速比和带宽均为模拟值，并非在硬件上实测。"),
    M(REP_SIM_BANNER_HTML, "Simulated GPU: every time, speedup and bandwidth in this report is simulated, not measured on hardware.",
      "模拟 GPU：本报告中所有时间、加速比和带宽均为模拟值，并非在硬件上实测。"),
    M(REP_SIMULATED_TAG, "simulated",
      "模拟"),
    M(REP_ERROR, "Error:",
      "错误："),
    M(REP_RESULT, "Result",
      "结果"),
    M(REP_BASELINE, "Baseline",
      "基线"),
    M(REP_BEST, "Best",
      "最佳版本"),
    M(REP_MEDIAN_TIME, "Median time",
      "中位耗时"),
    M(REP_P10_P90, "p10 .. p90",
      "p10 .. p90 区间"),
    M(REP_SPREAD, "Spread (p90-p10)/median",
      "波动 (p90-p10)/中位数"),
    M(REP_BANDWIDTH, "Bandwidth",
      "带宽"),
    M(REP_FLOP_RATE, "FLOP rate",
      "浮点运算速率"),
    M(REP_ROOFLINE_PCT, "% of roofline",
      "占屋顶线模型上限 %"),
    M(REP_REPETITIONS, "Repetitions",
      "重复次数"),
    M(REP_SPEEDUP, "Speedup",
      "加速比"),
    M(REP_SPEEDUP_WORD, "speedup",
      "加速比"),
    F(REP_SPREAD_FROM, "spread %s .. %s, from p10/p90",
      "波动区间 %s .. %s，取自 p10/p90"),
    M(REP_NO_FASTER, "No faster verified version.",
      "没有经过验证的更快版本。"),
    F(REP_ACCURACY, "Accuracy against the baseline's outputs: max abs error %s, max rel error %s",
      "相对基线输出的精度：最大绝对误差 %s，最大相对误差 %s"),
    F(REP_ACCURACY_HTML, "; against the baseline's outputs max abs error %s, max rel error %s",
      "；相对基线输出的最大绝对误差 %s，最大相对误差 %s"),
    M(REP_BEST_INFERRED, "No best version was recorded: the fastest verified one is shown.",
      "没有记录最佳版本：此处显示经过验证的最快版本。"),
    M(REP_BOTTLENECK_LINE, "Bottleneck (roofline position of the baseline): ",
      "瓶颈（基线在屋顶线模型中的位置）："),
    M(REP_SKILLS_FIT, "; skills that fit:",
      "；适用的优化技能："),
    M(REP_NONE, " none",
      " 无"),
    M(REP_CREDITED, "The gain is credited to skill `",
      "加速归功于优化技能 `"),
    M(REP_UNEXPLAINED, "**The gain is unexplained**: skill `",
      "**加速原因无法解释**：优化技能 `"),
    F(REP_CREDIT_EVIDENCE, "`'s evidence `%s` %s in the SASS (%lld lines; %lld in the baseline)\n",
      "` 的证据 `%s` %s SASS 中（%lld 行；基线中 %lld 行）\n"),
    M(REP_SHOWS, "shows",
      "出现在"),
    M(REP_DOES_NOT_SHOW, "does not show",
      "未出现在"),
    M(REP_A_METRIC, "(a metric)",
      "（一项指标）"),
    M(REP_VERSIONS, "Versions",
      "版本"),
    M(REP_VERSION, "Version",
      "版本"),
    M(REP_PARENT, "Parent",
      "父版本"),
    M(REP_STATUS, "Status",
      "状态"),
    M(REP_MEDIAN, "Median",
      "中位耗时"),
    M(REP_SPEEDUP_SPREAD, "Speedup (spread)",
      "加速比（波动区间）"),
    M(REP_MAX_ABS_ERR, "Max abs err",
      "最大绝对误差"),
    M(REP_MAX_REL_ERR, "Max rel err",
      "最大相对误差"),
    M(REP_PRODUCED_BY, "Produced by",
      "生成者"),
    M(REP_TAG_BASELINE, " (baseline)",
      "（基线）"),
    M(REP_TAG_BEST, " (best)",
      "（最佳）"),
    M(REP_CHAIN, "Chain: ",
      "版本链："),
    M(REP_DIFF, "Diff",
      "代码差异"),
    M(REP_TO, " to ",
      " 到 "),
    M(REP_EPISODE, "Episode",
      "优化任务"),
    M(REP_KERNEL, "Kernel",
      "核函数"),
    M(REP_FILE, "File",
      "文件"),
    M(REP_TARGET, "Target",
      "目标平台"),
    M(REP_ARCH, "Architecture",
      "架构"),
    M(REP_DEVICE, "Device",
      "设备"),
    M(REP_TOOLCHAIN, "Toolchain",
      "工具链"),
    M(REP_ENGINE, "Engine",
      "引擎"),
    M(REP_ENGINE_WORD, "engine",
      "引擎"),
    M(REP_ON, " on ",
      " 运行于 "),
    M(REP_STARTED, "Started",
      "开始时间"),
    M(REP_ENDED, "Ended",
      "结束时间"),
    M(REP_DURATION, "Duration",
      "耗时"),
    M(REP_BOTTLENECK, "Bottleneck",
      "瓶颈"),
    M(REP_ISOLATION, "Isolation",
      "隔离方式"),
    M(REP_CORRECTNESS, "Correctness",
      "正确性"),
    M(REP_PHYSICAL_FLOOR, "Physical floor",
      "物理下限"),
    M(REP_LIBRARY, "Library",
      "调用的库"),
    F(REP_LIBRARY_WORDS, "%s (%s, called from the version's host code: its kernels are the "
      "library's, not in the program's SASS)",
      "%s（%s，由该版本的主机代码调用：其核函数属于库本身，不在程序的 SASS 中）"),
    F(REP_CREDIT_LIBRARY, "`: the version calls %s (`%s`) from its host code; the call %s in "
      "its source\n",
      "`：该版本在主机代码中调用 %s（`%s`）；该调用%s其源代码中\n"),
    M(REP_MEMORY_SAFETY, "Memory safety",
      "内存安全"),
    M(REP_SKILLS_TRIED, "Skills tried",
      "尝试过的优化技能"),
    M(REP_STACKS_NOT_APPLIED, "Second rewrites not stacked on the leader",
      "未能叠加到领先候选上的第二个代码改写"),
    M(REP_SKILL, "Skill",
      "优化技能"),
    M(REP_REWRITE, "Rewrite",
      "代码改写"),
    M(REP_APPLIED, "Applied",
      "已应用"),
    M(REP_WHAT_STOPPED, "What stopped it",
      "未应用的原因"),
    M(REP_YES, "yes",
      "是"),
    M(REP_NO, "no",
      "否"),
    M(REP_STAGES, "Stages",
      "阶段"),
    M(REP_STAGE, "Stage",
      "阶段"),
    M(REP_EVENTS, "Events",
      "事件数"),
    M(REP_LAST_MESSAGE, "Last message",
      "最后一条消息"),
    F(REP_BW_HEAD, "Bandwidth of %s: %s, %s of peak bandwidth (%s, measured on this GPU)",
      "%s 的带宽：%s，为峰值带宽的 %s（%s，在这块 GPU 上实测）"),
    F(REP_BW_HEAD_NO_PEAK, "Bandwidth of %s: %s (no measured peak bandwidth for this GPU)",
      "%s 的带宽：%s（这块 GPU 没有实测的峰值带宽）"),
    M(REP_BW_NOTE, "% of peak bandwidth: the bytes the bench spec says one launch moves, divided by "
      "the median time, against the peak hkls measured on this GPU (a 16-byte copy kernel over "
      "buffers far larger than the L2). The tables' % of roofline is this figure for a "
      "memory-bound version (the FLOP rate against the FP32 peak when that fraction is larger). "
      "The README and the suite tables in bench/results quote % of the copy line instead: "
      "against a device-to-device copy of the same bytes, timed cold in the same run "
      "(bench/refs). That copy is slower than the peak, so the same run reads a few points "
      "higher there.",
      "峰值带宽 %：bench spec 给出的一次启动搬运的字节数除以中位耗时，再与 hkls 在这块 GPU 上"
      "实测的峰值（一个 16 字节拷贝核函数，缓冲区远大于 L2）相比。表中的屋顶线模型 % 对访存"
      "密集型版本就是这个数（FLOP 速率相对 FP32 峰值的比例更大时取后者）。README 和 "
      "bench/results 中的基准套件表格引用的是拷贝线 %：与同一次运行中冷启动计时、相同字节数"
      "的设备到设备拷贝相比（bench/refs）。该拷贝比峰值慢，所以同一次运行在那里的读数会高几个"
      "百分点。"),
    F(REP_FLOOR_NONE, "none (%s): %s", "无（%s）：%s"),
    M(REP_FLOOR_CREDITED, "speedups credited without one (--allow-no-floor)",
      "加速比未经物理下限检查即计入（--allow-no-floor）"),
    M(REP_FLOOR_NOT_CREDITED, "speedups measured but not credited", "加速比已测量，但未计入"),
    F(REP_FLOOR_UNCREDITED, "; %lld faster version(s) not credited, best v%lld at %.2fx (--allow-no-floor credits them)",
      "；%lld 个更快的版本未计入，最佳为 v%lld，%.2fx（--allow-no-floor 会计入它们）"),
    M(REP_UNKNOWN, "unknown", "未知"),
    F(REP_TOOLCHAIN_RUNTIME, ", CUDA %s (the runtime the device probe was built with)",
      "，CUDA %s（设备探测程序构建时所用的运行时）"),
    F(REP_TOOLCHAIN_DRIVER, "; driver for CUDA %s", "；驱动支持 CUDA %s"),
    M(REP_REJECTED, "Rejected candidates",
      "被拒绝的候选版本"),
    M(REP_REASON, "Reason",
      "原因"),
    M(REP_DETAILS, "Details",
      "详情"),
    M(REP_EVIDENCE_SUMMARY, "Evidence: ptxas, SASS counts, ncu, roofline (raw)",
      "证据：ptxas、SASS 计数、ncu、屋顶线模型（原始数据）"),
    M(REP_SETTINGS_SUMMARY, "Settings and recorded facts (raw)",
      "设置与记录的事实（原始数据）"),
    M(REP_FIELD, "Field",
      "字段"),
    M(REP_VALUE, "Value",
      "值"),
    M(REP_GENERATED, "Generated by Hyper Kernel at ",
      "由 Hyper Kernel 生成于 "),
    F(CLI_EPISODE, "episode %lld: %s",
      "优化任务 %lld：%s"),
    F(CLI_ERROR_SUFFIX, ": %s",
      "：%s"),
    F(CLI_KERNEL_LINE, "  kernel %s, %s on %s\n",
      "  核函数 %s，%s，运行于 %s\n"),
    M(CLI_NO_GPU, "no GPU",
      "无 GPU"),
    F(CLI_CANDIDATES, "  candidates: %lld proposed, %lld accepted, %lld rejected, %lld not measured",
      "  候选版本：提出 %lld 个，接受 %lld 个，拒绝 %lld 个，未测量 %lld 个"),
    F(CLI_NOT_CREDITED_COUNT, ", %lld measured but not credited",
      "，%lld 个已测量但未计入加速比"),
    F(CLI_BEHIND_COUNT, ", %lld timed behind the leader (not fully checked)",
      "，%lld 个计时落后于当前最优（未做完整校验）"),
    M(CLI_SIMULATED, "  SIMULATED GPU: the times and speedups below are simulated, not measured\n",
      "  模拟 GPU：以下时间和加速比均为模拟值，并非实测\n"),
    F(CLI_BEST, "  best v%lld: %.4g ms vs baseline %.4g ms (interleaved): %.2fx%s (pairs p10 %.2fx .. p90 %.2fx)\n",
      "  最佳版本 v%lld：%.4g ms，基线 %.4g ms（交替测量）：加速比 %.2fx%s（成对比值 p10 %.2fx .. p90 %.2fx）\n"),
    F(CLI_ROOFLINE, "  %.1f%% of the roofline bound",
      "  达到屋顶线模型上限的 %.1f%%"),
    M(CLI_COMMA, ", ",
      "，"),
    F(CLI_MAX_REL_ERR, "max rel error %.3g",
      "最大相对误差 %.3g"),
    F(CLI_PRODUCED_BY, "\n  produced by %s\n",
      "\n  生成者：%s\n"),
    F(CLI_NO_FASTER, "  no faster verified version (baseline %.4g ms)\n",
      "  没有经过验证的更快版本（基线 %.4g ms）\n"),
    F(CLI_REPORT, "  report: %s\n",
      "  报告：%s\n"),
    M(CLI_BUILT, "  built, not measured:\n",
      "  已编译，未测量：\n"),
    F(CLI_SOURCES, "  the candidates' sources: %s (vN.cu, the whole file of version N)\n",
      "  候选版本的源码：%s（vN.cu，即第 N 个版本的完整文件）\n"),
    F(RES_SUMMARY, "%d registers, %d B spill",
      "寄存器 %d 个，溢出 %d B"),
    F(RES_DCU_SPILLED, " (%d VGPRs, %d SGPRs spilled)",
      "（溢出 VGPR %d 个、SGPR %d 个）"),
    F(RES_SMEM, ", %d B smem",
      "，共享内存 %d B"),
    F(RES_OCCUPANCY, ", occupancy %.0f%% at %d threads/block",
      "，占用率 %.0f%%（每线程块 %d 个线程）"),
    F(RES_LIMITED_BY, " limited by %s",
      "，受限于%s"),
    M(LIMIT_THREADS, "threads",
      "线程数"),
    M(LIMIT_BLOCKS, "blocks",
      "线程块数"),
    M(LIMIT_REGISTERS, "registers",
      "寄存器"),
    M(LIMIT_SHARED_MEMORY, "shared memory",
      "共享内存"),
    M(LIMIT_BARRIERS, "barriers",
      "屏障数"),
    M(LIMIT_SGPRS, "sgprs",
      "SGPR"),
    M(HOVER_LAUNCH_CONFIGS, "Launch configurations",
      "启动配置"),
    M(HOVER_LAUNCHES, "Launches",
      "启动位置"),
    M(HOVER_NONE_IN_FILE, "- none in this file\n",
      "- 本文件中没有\n"),
    M(HOVER_RESOURCES, "Resources",
      "资源占用"),
    F(HOVER_LAST_COMPILE, "last compile%s",
      "最近一次编译%s"),
    M(HOVER_OLDER_VERSION, ", older version",
      "，较旧的版本"),
    M(DOC_CAT_TOOLCHAINS, "toolchains",
      "工具链"),
    M(DOC_CAT_GPUS, "gpus",
      "GPU"),
    M(DOC_CAT_PROFILERS, "profilers",
      "性能分析器"),
    M(DOC_CAT_CHECKERS, "checkers",
      "检查工具"),
    M(DOC_CAT_DISASSEMBLERS, "disassemblers",
      "反汇编器"),
    M(DOC_CAT_RUNNERS, "runners",
      "运行器"),
    M(DOC_CAT_ISOLATION, "isolation",
      "隔离"),
    M(DOC_COST_NVCC, "No NVIDIA compiles: no compile diagnostics, no register/spill/occupancy facts and no "
      "NVIDIA optimization on this machine.",
      "无法进行 NVIDIA 编译：本机没有编译诊断，没有寄存器、溢出和占用率信息，也无法做 NVIDIA 优化。"),
    M(DOC_COST_PTXAS, "nvcc cannot generate device code, so registers and spills are unknown.",
      "nvcc 无法生成设备代码，因此寄存器用量和溢出情况未知。"),
    M(DOC_COST_HIPCC, "No HIP/DCU compiles: .hip files get no diagnostics or VGPR/LDS facts and no DCU "
      "optimization runs here.",
      "无法进行 HIP/DCU 编译：.hip 文件没有诊断和 VGPR/LDS 信息，本机也无法运行 DCU 优化。"),
    M(DOC_COST_NVIDIA_SMI, "NVIDIA GPUs cannot be listed, so no local NVIDIA runs: use an ssh or Slurm runner.",
      "无法列出 NVIDIA GPU，因此不能在本机运行 NVIDIA 测量：请使用 ssh 或 Slurm 运行器。"),
    M(DOC_COST_NVIDIA_DEV, "No NVIDIA GPU device here: kernels compile but cannot be measured locally.",
      "本机没有 NVIDIA GPU 设备：核函数可以编译，但不能在本机测量。"),
    M(DOC_COST_ROCM_SMI, "AMD GPUs cannot be listed, so no local DCU runs through ROCm.",
      "无法列出 AMD GPU，因此不能通过 ROCm 在本机运行 DCU 测量。"),
    M(DOC_COST_HY_SMI, "Hygon DCUs cannot be listed, so no local DCU runs through DTK.",
      "无法列出海光 DCU，因此不能通过 DTK 在本机运行 DCU 测量。"),
    M(DOC_COST_KFD, "No AMD/Hygon GPU device here: HIP kernels compile but cannot be measured locally.",
      "本机没有 AMD/海光 GPU 设备：HIP 核函数可以编译，但不能在本机测量。"),
    M(DOC_COST_NCU, "No Nsight Compute counters: NVIDIA reports show times but no DRAM/SM throughput or "
      "roofline position.",
      "没有 Nsight Compute 性能计数器：NVIDIA 报告只有时间，没有 DRAM/SM 吞吐量和屋顶线模型中的位置。"),
    M(DOC_COST_NSYS, "No Nsight Systems timelines of whole programs.",
      "没有 Nsight Systems 的整个程序时间线。"),
    M(DOC_COST_ROCPROF, "No counters on AMD GPUs: DCU reports show times only.",
      "AMD GPU 上没有性能计数器：DCU 报告只有时间。"),
    M(DOC_COST_HIPPROF, "No counters on Hygon DCUs (DTK's profiler): DCU reports show times only.",
      "海光 DCU 上没有性能计数器（DTK 的性能分析器）：DCU 报告只有时间。"),
    M(DOC_COST_SANITIZER, "No memory-safety check: the accepted best and candidates claiming over 2x are not run "
      "under memcheck, racecheck and initcheck, and reports say \"memory safety: not checked\".",
      "没有内存安全检查：被接受的最佳版本和加速比超过 2x 的候选版本不会经过 memcheck、racecheck 和 "
      "initcheck，报告中注明内存安全未检查。"),
    M(DOC_COST_CUOBJDUMP, "No SASS: NVIDIA reports lack machine-code evidence (wide loads, tensor cores, local "
      "memory traffic).",
      "没有 SASS：NVIDIA 报告缺少机器码证据（宽位加载、Tensor Core、本地内存流量）。"),
    M(DOC_COST_NVDISASM, "No control-flow view of SASS from raw cubins (cuobjdump covers the common case).",
      "无法查看原始 cubin 中 SASS 的控制流（常见情况由 cuobjdump 覆盖）。"),
    M(DOC_COST_LLVM_OBJDUMP, "No AMD GCN/CDNA ISA: DCU reports lack machine-code evidence.",
      "没有 AMD GCN/CDNA 指令集反汇编：DCU 报告缺少机器码证据。"),
    M(DOC_COST_SSH, "Remote GPU hosts cannot be used as runners.",
      "无法使用远程 GPU 主机作为运行器。"),
    M(DOC_COST_SRUN, "Slurm partitions cannot be used as runners (interactive jobs).",
      "无法使用 Slurm 分区作为运行器（交互式作业）。"),
    M(DOC_COST_SBATCH, "Slurm batch submission is unavailable.",
      "无法使用 Slurm 批处理提交。"),
    M(DOC_COST_BWRAP, "No bubblewrap: candidate programs get the namespace sandbox instead where the kernel "
      "allows it (see 'sandbox' below), else no filesystem isolation.",
      "没有 bubblewrap：Linux 内核允许时，候选程序改用命名空间沙箱（见下面的 sandbox），否则没有文件系统隔离。"),
    M(DOC_COST_PRLIMIT, "Candidate runs cannot be given CPU-time and memory limits from outside.",
      "无法从外部为候选程序的运行设置 CPU 时间和内存限制。"),
    F(DOC_QUERY_FAILED, "  (installed, but the query failed: %s)",
      "  （已安装，但查询失败：%s）"),
    M(DOC_NO_OUTPUT, "no output",
      "无输出"),
    F(DOC_SANDBOX_FAILS, "HK_RUNNER_ISOLATION=%s does not work here: sandboxed runs fail",
      "HK_RUNNER_ISOLATION=%s 在本机不可用：沙箱中的运行会失败"),
    F(DOC_SANDBOX_FORCED, "(forced by HK_RUNNER_ISOLATION=%s)",
      "（由 HK_RUNNER_ISOLATION=%s 指定）"),
    M(DOC_WORKS_HERE, "works here:",
      "本机可用："),
    M(DOC_YES, "yes",
      "是"),
    M(DOC_NO, "no",
      "否"),
    M(DOC_THIS_HKLS, "this hkls",
      "本 hkls"),
    M(DOC_HARNESS_MISSING, ": episodes cannot build their benchmark programs (set HK_INCLUDE_DIR)",
      "：优化任务无法构建基准测试程序（请设置 HK_INCLUDE_DIR）"),
    M(DOC_SKILLS_MISSING, ": no structural rewrites (set HK_SKILLS_DIR)",
      "：没有结构性代码改写（请设置 HK_SKILLS_DIR）"),
    M(DOC_CUPTI_MISSING, "command-form specs cannot be timed (libhk_cupti.so is built where CUPTI is found)",
      "命令形式的 bench spec 无法计时（找到 CUPTI 时才会构建 libhk_cupti.so）"),
    M(DOC_OCCUPANCY_TABLES, "occupancy tables: ",
      "占用率表："),
    F(DOC_MISSING_COUNT, "%lld of %lld missing.",
      "缺少 %lld 项（共 %lld 项）。"),
    F(TRUST_ADDED, "trusted: %s",
      "已信任：%s"),
    F(TRUST_ALREADY, "already trusted: %s",
      "此前已信任：%s"),
    F(TRUST_REMOVED, "no longer trusted: %s",
      "已取消信任：%s"),
    F(TRUST_WAS_NOT, "was not trusted: %s",
      "原本未信任：%s"),
    F(SPEC_CLI_INFERRED, "hkls spec: inferred: %s",
      "hkls spec：推断：%s"),
    F(SPEC_CLI_CHECK, "hkls spec: check: %s",
      "hkls spec：请检查：%s"),
    F(HOVER_LAUNCH_OF, "Launch of %s",
      "核函数 %s 的启动"),
    F(HOVER_KERNEL_AT_LINE, "- %s at line %u",
      "- %s，第 %u 行"),
    F(HOVER_LINE_IN, "- line %u in %s",
      "- 第 %u 行，位于 %s"),
    M(HOVER_FILE_SCOPE, "file scope",
      "文件作用域"),
    F(HOVER_GRID_BLOCK, ": grid %s, block %s",
      "：网格 %s，线程块 %s"),
    F(HOVER_SHARED_MEMORY, ", shared memory %s B",
      "，共享内存 %s B"),
    F(HOVER_STREAM, ", stream %s",
      "，流 %s"),
    F(CHECK_NOT_CHECKED, "not checked: %s\n",
      "未检查：%s\n"),
    F(CHECK_OK_ONE, "ok, 1 kernel (%.1f s)\n",
      "通过，1 个核函数（%.1f 秒）\n"),
    F(CHECK_OK_MANY, "ok, %zu kernels (%.1f s)\n",
      "通过，%zu 个核函数（%.1f 秒）\n"),
    F(CHECK_COMPILE_ERRORS, "compile errors (exit %lld)\n",
      "编译错误（退出码 %lld）\n"),
    F(CHECK_AT_LINE, " (line %lld)",
      "（第 %lld 行）"),
    F(CHECK_NV_REGISTERS, ": %lld registers",
      "：%lld 个寄存器"),
    F(CHECK_NV_SPILLS, ", SPILLS %lld B stores / %lld B loads",
      "，有溢出：%lld B 存储 / %lld B 加载"),
    M(CHECK_NO_SPILLS, ", no spills",
      "，无溢出"),
    F(CHECK_NV_MEMORY, ", %lld B shared, %lld B stack",
      "，%lld B 共享内存，%lld B 栈"),
    F(CHECK_DCU_REGISTERS, ": %lld VGPRs, %lld SGPRs",
      "：%lld 个 VGPR，%lld 个 SGPR"),
    F(CHECK_DCU_AGPRS, ", %lld AGPRs",
      "，%lld 个 AGPR"),
    F(CHECK_DCU_SPILLS, ", SPILLS %lld VGPRs / %lld SGPRs",
      "，有溢出：%lld 个 VGPR / %lld 个 SGPR"),
    F(CHECK_DCU_MEMORY, ", %lld B LDS, %lld B scratch/lane",
      "，%lld B LDS，每通道 %lld B scratch"),
    F(CHECK_OCCUPANCY, "\n      occupancy %.0f%%: %lld blocks/%s x %lld threads (",
      "\n      占用率 %.0f%%：%lld 个线程块/%s × %lld 个线程（"),
    M(CHECK_BLOCK_ASSUMED, "block size assumed",
      "线程块大小为假定值"),
    F(CHECK_BLOCK_FROM, "block size from %s",
      "线程块大小取自 %s"),
    M(CHECK_A_LAUNCH, "a launch",
      "启动处"),
    F(CHECK_DYNAMIC_SHARED, ", %lld B dynamic shared",
      "，%lld B 动态共享内存"),
    F(CHECK_LIMITED_BY, "), limited by %s",
      "），受限于%s"),
    F(CHECK_OCCUPANCY_UNKNOWN, "\n      occupancy unknown for %s",
      "\n      %s 的占用率未知"),
    F(CHECK_NOT_COMPILED, "  %s: no code generated (a template never instantiated in this file?)\n",
      "  %s：未生成代码（是否为本文件中从未实例化的模板？）\n"),
    M(HIST_EPISODES, "episodes",
      "优化任务"),
    M(HIST_VERSIONS, "versions",
      "版本"),
    M(HIST_NONE, "(none)",
      "（无）"),
    M(HIST_NO_GPU, "(no GPU)",
      "（无 GPU）"),
    F(HIST_BEST, "  best v%d %s",
      "  最佳版本 v%d %s"),
    M(HIST_SIMULATED, "  (simulated GPU: not measured on hardware)",
      "  （模拟 GPU：未在硬件上测量）"),
    F(HIST_NOTE, "      note: %s",
      "      备注：%s"),
    F(HIST_WHY, "      why: %s",
      "      原因：%s"),
    F(HIST_MAX_REL_ERR, "  max rel err %.2g",
      "  最大相对误差 %.2g"),
    F(HIST_NO_HISTORY_FOR, "no history for %s\n",
      "%s 没有历史记录\n"),
    F(HIST_NO_HISTORY_YET, "no history yet in %s\n",
      "%s 中还没有历史记录\n"),
    F(EPW_PEAKS, "measuring the peaks of %s (once per device)",
      "测量 %s 的峰值（每台设备一次）"),
    M(EPW_INIT, "toolchain, GPU and peaks",
      "工具链、GPU 和峰值"),
    M(EPW_BASELINE_GPU, "the original kernel: build, reference outputs and timing",
      "原始核函数：构建、参考输出与计时"),
    M(EPW_BASELINE_NO_GPU, "the original kernel: build (no GPU: no runs)",
      "原始核函数：构建（无 GPU：不运行）"),
    M(EPW_COMPILING_BASELINE, "compiling the baseline",
      "编译基线"),
    M(EPW_RUN_BASELINE_QUICK, "running the baseline on the quick set of (size, seed, distribution)",
      "在快速集合（尺寸、种子、分布）上运行基线"),
    M(EPW_RUN_BASELINE_FULL, "running the baseline on the full set of (size, seed, distribution)",
      "在完整集合（尺寸、种子、分布）上运行基线"),
    F(EPW_BASELINE_SIZE, "baseline size %zu: %.4g ms (p10 %.4g, p90 %.4g, %d reps)%s",
      "基线尺寸 %zu：%.4g ms（p10 %.4g，p90 %.4g，%d 次重复）%s"),
    M(EPW_SPEEDUP_HERE, ", the speedup is measured here",
      "，加速比在此尺寸上测量"),
    M(EPW_ACCURACY, "re-checking the best on the full set (every size, seed and distribution) with new seeds",
      "用新种子在完整集合（每种尺寸、种子和分布）上重新检查最佳版本"),
    F(EPW_PASSED_MORE, "v%d passed %zu more combinations (the full set, seeds + 1000): max abs error %.3g, max rel error %.3g",
      "v%d 又通过了 %zu 个组合（完整集合，种子 + 1000）：最大绝对误差 %.3g，最大相对误差 %.3g"),
    F(EPW_VERIFY, "baseline and v%d interleaved, %zu pairs, separate processes",
      "基线与 v%d 交替运行，%zu 对，各自独立进程"),
    F(EPW_INTERLEAVED, "interleaved: baseline %.4g ms, v%d %.4g ms: %.2fx (pairs p10 %.2fx .. p90 %.2fx)",
      "交替运行：基线 %.4g ms，v%d %.4g ms：%.2fx（成对 p10 %.2fx .. p90 %.2fx）"),
    M(EPW_REPORT, "evidence and the report",
      "证据与报告"),
    F(EPW_CANDIDATE, "candidate %zu/%ld",
      "候选版本 %zu/%ld"),
    F(EPW_CANDIDATE_BEST, "candidate %zu/%ld, best %.2fx",
      "候选版本 %zu/%ld，最佳 %.2fx"),
    F(EPW_SEARCH, "builtin search: up to %ld candidates or %.1f minutes",
      "内置搜索：最多 %ld 个候选版本或 %.1f 分钟"),
    M(EPW_CMD_BASELINE_GPU, "the original program: its build command, then its run command timed by CUPTI",
      "原始程序：其构建命令，然后由 CUPTI 计时其运行命令"),
    M(EPW_CMD_BASELINE_NO_GPU, "the original program: its build command (no GPU: no runs)",
      "原始程序：其构建命令（无 GPU：不运行）"),
    F(EPW_CMD_RUNNING, "building and running the original program (%u timed runs)",
      "构建并运行原始程序（%u 次计时运行）"),
    F(EPW_CMD_BASELINE, "baseline: %.4g ms of %s device time per run (p10 %.4g, p90 %.4g, %d runs, CUPTI; build %ld ms)",
      "基线：每次运行 %.4g ms 的 %s 设备时间（p10 %.4g，p90 %.4g，%d 次运行，CUPTI；构建 %ld ms）"),
    F(EPW_CMD_SEARCH, "builtin search (kernel text rewrites): up to %ld candidates or %.1f minutes",
      "内置搜索（核函数文本改写）：最多 %ld 个候选版本或 %.1f 分钟"),
    M(EPW_CMD_ACCURACY, "command form: the program's own checks gated every run",
      "命令形式：每次运行都由程序自身的检查把关"),
    F(EPW_CMD_VERIFY, "baseline and v%d built once each, runs interleaved, %zu pairs",
      "基线与 v%d 各构建一次，交替运行，%zu 对"),
    F(EPW_CMD_INTERLEAVED, "interleaved runs: baseline %.4g ms, v%d %.4g ms: %.2fx (pairs p10 %.2fx .. p90 %.2fx)",
      "交替运行：基线 %.4g ms，v%d %.4g ms：%.2fx（成对 p10 %.2fx .. p90 %.2fx）"),
    F(SHOW_UNTRUSTED, "hkls: %s is not a trusted folder, so these settings of its %s were ignored: %s (they can run programs, send the code elsewhere or replace the GPU with the simulator). The other settings apply. To trust the folder run \"hkls trust %s\", :HyperKernelTrust in Neovim or the command hyperkernel.trustFolder, or trust the workspace in VS Code.",
      "hkls：%s 不是受信任的文件夹，因此忽略了其 %s 中的以下设置：%s（它们可以运行程序、把代码发送到别处或用模拟器代替 GPU）。其他设置照常生效。要信任该文件夹，请运行 \"hkls trust %s\"、在 Neovim 中运行 :HyperKernelTrust 或执行命令 hyperkernel.trustFolder，或在 VS Code 中信任该工作区。"),
    F(SHOW_TRUSTED_FULL, "hkls: trusted %s: its .hyperkernel.json applies in full",
      "hkls：已信任 %s：其 .hyperkernel.json 全部生效"),
    F(SHOW_TRUSTED, "hkls: trusted %s",
      "hkls：已信任 %s"),
    F(SHOW_UNTRUSTING, "hkls: no longer trusting %s",
      "hkls：不再信任 %s"),
    F(SHOW_REPORT_OF, "Report of episode %lld: %s",
      "优化任务 %lld 的报告：%s"),
    F(SHOW_CONFIG_BAD, "%s: line %d: %s; the file is ignored",
      "%s：第 %d 行：%s；已忽略该文件"),
    M(SHOW_NOT_AN_OBJECT, "not a JSON object",
      "不是 JSON 对象"),
    M(SHOW_NO_COMPILER, "hkls: the compiler was not found, so there are no compile diagnostics; set compile.nvcc / compile.hipcc (docs/config.md)",
      "hkls：未找到编译器，因此没有编译诊断；请设置 compile.nvcc / compile.hipcc（docs/config.md）"),
    F(SHOW_START_FAILED, "Optimize failed: %s",
      "优化失败：%s"),
    F(SHOW_ANALYSIS_OFF, "hkls: CUDA/HIP analysis is off: %s",
      "hkls：CUDA/HIP 分析已关闭：%s"),
    F(VC_INTERLEAVED, "interleaved: baseline %.4g ms, candidate %.4g ms: %.2fx (pairs p10 %.2fx .. p90 %.2fx, %lld pairs)\n",
      "交替运行：基线 %.4g ms，候选版本 %.4g ms：%.2fx（成对 p10 %.2fx .. p90 %.2fx，%lld 对）\n"),
    F(VC_FASTER, "accepted: faster, %.2fx interleaved (judged %.4g ms, %.2fx)%s\n",
      "已接受：更快，交替运行 %.2fx（评判时 %.4g ms，%.2fx）%s\n"),
    M(VC_FLAGGED, " (over 10x: verified again on fresh seeds)",
      "（超过 10 倍：已用新种子再次验证）"),
    F(VC_NOT_FASTER, "accepted: correct, but not faster: %.2fx interleaved, pairs p10 %.2fx is not above 1\n",
      "已接受：结果正确，但并未更快：交替运行 %.2fx，成对 p10 %.2fx 不大于 1\n"),
    F(VC_NOT_CREDITED, "accepted: correct, %.2fx interleaved, but the speedup is not credited\n",
      "已接受：结果正确，交替运行 %.2fx，但该加速比不予认可\n"),
    M(VC_NOT_MEASURED, "not measured: no GPU",
      "未测量：没有 GPU"),
    F(VC_REJECTED, "rejected: %s\n",
      "已拒绝：%s\n"),
    F(SPEC_CLI_WROTE, "hkls spec: wrote %s for kernel %s; check its counts, kinds and sizes",
      "hkls spec：已写入 %s（核函数 %s），请检查其中的元素个数、参数种类和问题规模"),
    /* spec inference's notes and doubts: the spec's "inferred" list and the doubts of a
     * draft are written in the language of the process that infers (docs/i18n.md) */
    F(INF_INCLUDE_DIRS,
      "include folders from the build's %s: %s",
      "包含目录来自构建的 %s：%s"),
    F(INF_SIZE_STRIDE,
      "size %s %lld: it only sets the stride %s of rows %lld wide (one block), which lie side by "
      "side at it, and the rows launched (%s) grow the work",
      "大小 %s %lld：它只设置行跨距 %s，每行 %lld 宽（一个线程块），各行并排放在该跨距上，而启动的行数（%s）决定工作量"),
    F(INF_TIMING_HALVED,
      "timing sizes (sizes[1]) halved until every buffer fits (%s as invented): %s",
      "计时大小（sizes[1]）减半，直到每个缓冲区都放得下（%s 为编造值）：%s"),
    F(INF_TIMING_GROWN_PAST,
      "timing sizes (sizes[1]) grown until %s move %.0f MB, past 4x the 50 MB L2 of an H200: %s",
      "计时大小（sizes[1]）增大，直到 %s 搬运 %.0f MB，超过 H200 的 50 MB L2 的 4 倍：%s"),
    F(INF_TIMING_GROWN_SHORT,
      "timing sizes (sizes[1]) grown until %s move %.0f MB, short of 4x the 50 MB L2 of an H200 "
      "(%s%s%s): %s",
      "计时大小（sizes[1]）增大，直到 %s 搬运 %.0f MB，不足 H200 的 50 MB L2 的 4 倍（%s%s%s）：%s"),
    F(INF_TIMING_SHORT,
      "timing sizes (sizes[1]) move %.0f MB, short of 4x the 50 MB L2 of an H200: %s%s%s",
      "计时大小（sizes[1]）搬运 %.0f MB，不足 H200 的 50 MB L2 的 4 倍：%s%s%s"),
    F(INF_TIMED_NOTHING,
      "the timed set (sizes[1]) moves %.2f MB in the buffers whose counts are known: the guessed "
      "count of %s (past a cap at any larger size) leaves nothing to time",
      "计时集（sizes[1]）在元素个数已知的缓冲区中搬运 %.2f MB：推测的 %s 的元素个数（更大的大小都会超过上限）使得没有可计时的工作"),
    F(INF_CHECK_GROWN,
      "check sizes (sizes[0]) %sgrown until the launch has two blocks (one checks nothing "
      "between blocks), the buffers %.1f MB in all, guessed counts included, within 16 MiB: %s",
      "检查大小（sizes[0]）%s增大，直到启动有两个线程块（一个线程块检查不到线程块之间的问题），缓冲区共 %.1f MB（含推测的元素个数），不超过 16 MiB：%s"),
    F(INF_CHECK_HALVED,
      "check sizes (sizes[0]) halved until the buffers take %.1f MB in all%s (the check set runs "
      "for every seed and distribution, and in an fp64 shadow): %s",
      "检查大小（sizes[0]）减半，直到缓冲区共占 %.1f MB%s（检查集要对每个种子和分布运行，还要在 fp64 影子中运行）：%s"),
    M(INF_CHECK_CAPS,
      "check sizes (sizes[0]) past the memory caps: no size can be halved",
      "检查大小（sizes[0]）超过内存上限：没有可减半的大小"),
    F(INF_CHECK_PAST,
      "check sizes (sizes[0]) take %.0f MB in all, past 16 MiB: no size can be halved",
      "检查大小（sizes[0]）共占 %.0f MB，超过 16 MiB：没有可减半的大小"),
    M(INF_CHECK_ONE_BLOCK,
      "check sizes (sizes[0]) launch one block: more would take past 16 MiB",
      "检查大小（sizes[0]）只启动一个线程块：更多会超过 16 MiB"),
    F(INF_BRANCH_RUNS,
      "the launch at %s:%d runs %s: every call of %s (%d in the file) passes %s = %lld",
      "%s:%d 处的启动位于%s：%s 的每次调用（文件中共 %d 次）都传入 %s = %lld"),
    F(INF_BRANCH_NONE,
      "every launch of %s is in a branch the program does not take (%s = %lld at every call of "
      "%s)",
      "%s 的每次启动都在程序不会进入的分支中（%s = %lld，在 %s 的每次调用中）"),
    F(INF_TARG_GUESSED,
      "template argument %s of %s is not given by a launch site or an explicit instantiation: "
      "guessed %s",
      "%s 的模板参数 %s 既没有由启动点给出，也没有显式实例化：推测为 %s"),
    F(INF_TARG_SCALAR_T,
      "template argument %s = float: %s is scalar_t inside %s at %s:%d, which instantiates it "
      "for float among others",
      "模板参数 %s = float：%s 在 %s 中（%s:%d）是 scalar_t，它在其他类型之外也为 float 实例化"),
    F(INF_TARG_LAUNCHER,
      "template argument %s = float: the launch at %s:%d passes %s, a type parameter of its "
      "launcher %s, which line %d instantiates for float (an explicit instantiation, or a call "
      "that names the type)",
      "模板参数 %s = float：%s:%d 处的启动传入 %s，这是其启动函数 %s 的类型参数，第 %d 行将它实例化为 float（显式实例化，或指明类型的调用）"),
    F(INF_TARG_FROM,
      "template argument %s = %s from %s",
      "模板参数 %s = %s，来自 %s"),
    F(INF_BLOCK_SITE,
      "block from the launch site at %s:%d",
      "线程块来自 %s:%d 处的启动点"),
    F(INF_BLOCK_CASE,
      "block %lld: the launch at %s:%d is under `case %lld:` of a switch on its block %s",
      "线程块 %lld：%s:%d 处的启动位于 `case %lld:` 之下，该 switch 判断的是它的线程块 %s"),
    F(INF_BLOCK_IF,
      "block %lld x %lld x %lld: the launch at %s:%d is under an `if` that compares its block %s "
      "with a constant",
      "线程块 %lld x %lld x %lld：%s:%d 处的启动位于将其线程块 %s 与常量比较的 `if` 下"),
    F(INF_PASSED_AS_SIZE,
      "%s passed as %s at %s:%d: that text in the launcher is the size %s",
      "%s 以 %s 传入（%s:%d）：启动函数中的这段文本就是大小 %s"),
    F(INF_FLAG_FALSE,
      "flag %s set to false (no launch site gives it)",
      "标志 %s 设为 false（没有启动点给出它）"),
    F(INF_SIZE_FIRST_ZERO,
      "%s is 0 at the program's first launch (%s:%d): an offset, invented small (1 and 3)",
      "%s 在程序首次启动时（%s:%d）为 0：是偏移量，编造为小值（1 和 3）"),
    F(INF_BLOCK_PINNED,
      "block pinned at %lld: %s (line %d)",
      "线程块固定为 %lld：%s（第 %d 行）"),
    F(INF_BLOCK_PINNED_MULTIPLE,
      "block pinned at %lld, as the launch at %s:%d gives it: the index math steps blockIdx.x by "
      "%lld, %lld elements per thread that far apart",
      "线程块固定为 %lld，与 %s:%d 处的启动一致：下标计算中 blockIdx.x 的步长为 %lld，"
      "每个线程处理 %lld 个相隔一个线程块的元素"),
    F(INF_BLOCK_LAUNCH_BOUNDS,
      "block pinned: the kernel declares __launch_bounds__(%s)",
      "线程块固定：核函数声明了 __launch_bounds__(%s)"),
    F(INF_BLOCK_MISMATCH,
      "the launch at %s:%d uses a block of %lld but the index math assumes %lld",
      "%s:%d 处的启动使用 %lld 的线程块，但下标计算假定为 %lld"),
    F(INF_BLOCK_GROWS,
      "the block of the launch at %s:%d grows with the sizes (%s): the kernel may rely on it, "
      "and a generated spec launches a fixed one (guessed %s)",
      "%s:%d 处启动的线程块随大小变化（%s）：核函数可能依赖于此，而生成的 spec 启动固定的线程块（推测为 %s）"),
    F(INF_BLOCK_UNREAD,
      "the block %s of the launch at %s:%d could not be read: guessed %s",
      "无法读取线程块 %s（%s:%d 处的启动）：推测为 %s"),
    F(INF_GRID_BOUND_ON,
      "grid %c from the bounds check on %s at line %d",
      "网格 %c 来自对 %s 的边界检查（第 %d 行）"),
    F(INF_GRID_BOUND_GLOBAL,
      "grid %c from the bounds check at line %d (the kernel model's global index)",
      "网格 %c 来自第 %d 行的边界检查（核函数模型的全局下标）"),
    F(INF_GRID_FLAT,
      "grid %s x 1 from the bounds check at line %d on the flat index of a 2-D grid (blockDim.x "
      "* (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x)",
      "网格 %s x 1 来自第 %d 行对二维网格扁平下标（blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + "
      "threadIdx.x）的边界检查"),
    F(INF_GRID_FLAT_BOUND,
      "the flat index of a 2-D grid is bounded by %s at line %d: grid x times grid y must launch "
      "ceil_div(%s, %lld) blocks (checked at every size set)",
      "二维网格的扁平下标受 %s 约束（第 %d 行）：网格 x 乘以网格 y 必须启动 ceil_div(%s, %lld) 个线程块（每组大小都已检查）"),
    F(INF_GRID_GRIDDIM,
      "the write to %s at line %u computes its element with gridDim outside a grid-stride loop: "
      "which elements a grid reaches depends on its shape, and no bounds check says which grid "
      "covers them",
      "对 %s 的写入（第 %u 行）在网格跨步循环之外用 gridDim 计算元素：网格能到达哪些元素取决于它的形状，而没有边界检查说明哪个网格能覆盖它们"),
    F(INF_GRID_SITE,
      "grid from the launch site at %s:%d",
      "网格来自 %s:%d 处的启动点"),
    F(INF_GRID_BOUNDS_MATH,
      "grid %c from the bounds checks of the index math",
      "网格 %c 来自下标计算的边界检查"),
    F(INF_GRID_X_STRIDE,
      "grid x over %s: the bound of the grid-stride loop at line %d",
      "网格 x 覆盖 %s：第 %d 行网格跨步循环的上界"),
    F(INF_GRID_ROWS,
      "grid %s x %s, block %lld x %lld: %s writes rows of stride %s at %lld * blockIdx.y + "
      "threadIdx.y%s, and never reads %s (the rows launched)",
      "网格 %s x %s，线程块 %lld x %lld：%s 写入跨距为 %s 的行，行号为 %lld * blockIdx.y + threadIdx.y%s，且从不读取 "
      "%s（启动的行数）"),
    F(INF_GRID_STRIDE,
      "grid over %s: the bound of the grid-stride loop at line %d",
      "网格覆盖 %s：第 %d 行网格跨步循环的上界"),
    F(INF_GRID_ODD_SCALE,
      "the index at line %d scales blockIdx.%c by neither blockDim.%c nor a constant: how many "
      "blocks cover the outputs is not known",
      "第 %d 行的下标既不用 blockDim.%c 也不用常量缩放 blockIdx.%c：不知道需要多少线程块才能覆盖输出"),
    F(INF_COUNT_ALLOC_AT,
      "count of %s from its allocation at %s:%d",
      "%s 的元素个数来自 %s:%d 处的分配"),
    F(INF_COUNT_ALLOC_LINE,
      "count of %s from its allocation at line %d",
      "%s 的元素个数来自第 %d 行的分配"),
    F(INF_COUNT_MOVED,
      "count of %s from the kernel model's index forms in %s (its move at line %d put in)",
      "%s 的元素个数来自 %s 中核函数模型的下标形式（计入第 %d 行的指针移动）"),
    F(INF_COUNT_MOVED_PASS,
      "count of %s from the kernel model's index forms in %s (its move at line %d put in, one "
      "pass of the grid-stride loop each)",
      "%s 的元素个数来自 %s 中核函数模型的下标形式（计入第 %d 行的指针移动，网格跨步循环每轮一次）"),
    F(INF_MOVED_NO_COUNT,
      "%s is moved at line %d (its subscripts are relative to that): no count from the index math",
      "%s 在第 %d 行被移动（其下标相对于移动后的位置）：下标计算得不出元素个数"),
    F(INF_COUNT_DERIVED,
      "count of %s from the kernel model's index forms in %s (the pointer made from it at line "
      "%d followed)",
      "%s 的元素个数来自 %s 中核函数模型的下标形式（跟踪了第 %d 行由它得到的指针）"),
    F(INF_COUNT_SUBSCRIPTS,
      "count of %s from its subscripts in %s",
      "%s 的元素个数来自 %s 中的下标"),
    F(INF_COUNT_TEMPS,
      "count of %s from the kernel model's index forms in %s (temporaries followed)",
      "%s 的元素个数来自 %s 中核函数模型的下标形式（跟踪了临时变量）"),
    F(INF_GRID_GUESSED_FOLLOW,
      "grid guessed over %s: %s has no bounds check, and every count follows the threads it "
      "launches",
      "网格按 %s 推测：%s 没有边界检查，且每个元素个数都随它启动的线程而定"),
    F(INF_GRID_GUESSED_1D,
      "no launch site or bounds check says how many blocks %s needs: guessed a 1D grid over %s",
      "没有启动点或边界检查说明 %s 需要多少线程块：推测为覆盖 %s 的一维网格"),
    F(INF_GRID_GUESSED_2D,
      "no launch site or bounds check says how many blocks %s needs: guessed a 2D grid of %s x %s",
      "没有启动点或边界检查说明 %s 需要多少线程块：推测为 %s x %s 的二维网格"),
    F(INF_SIZE_ASSERT_MAX,
      "size %s at most %lld: the largest the assert at %s:%d allows",
      "大小 %s 至多为 %lld：%s:%d 处的 assert 允许的最大值"),
    F(INF_SHARED_IN_RANGE,
      "the shared-memory subscript at line %u stays in [%lld, %lld] for every value of the "
      "sizes: inside %s's %lld elements",
      "第 %u 行的共享内存下标对所有大小取值都在 [%lld, %lld] 内：在 %s 的 %lld 个元素之内"),
    F(INF_SHARED_SCALAR,
      "the shared-memory subscript at line %u depends on a scalar parameter, whose value is "
      "invented: it may leave the shared array (give the sizes the program uses)",
      "第 %u 行的共享内存下标依赖一个标量参数，其值是编造的：可能越出共享数组（请给出程序使用的大小）"),
    F(INF_SIZES_BREAK_ASSERT,
      "sizes[%d] break the assert at %s:%d (%s %s %s): the program does not run with them",
      "sizes[%d] 违反 %s:%d 处的 assert（%s %s %s）：程序无法以这些大小运行"),
    F(INF_SIZES_SITE,
      "sizes from the launch site at %s:%d",
      "大小来自 %s:%d 处的启动点"),
    F(INF_SIZES_INVENTED,
      "sizes invented: %s",
      "大小为编造值：%s"),
    F(INF_NO_BOUNDS_MULTIPLE,
      "no bounds check in %s: every size the grid divides into blocks a multiple of its block "
      "(%s)",
      "%s 中没有边界检查：网格按线程块划分的每个大小都是其线程块（%s）的倍数"),
    F(INF_NO_BOUNDS_NONE,
      "no bounds check in %s, and no size the grid divides into blocks",
      "%s 中没有边界检查，网格也不按线程块划分任何大小"),
    F(INF_ROWS_OVERLAP,
      "%s writes rows %s apart, %s elements wide at sizes[%d]: rows may overlap",
      "%s 写入的行相距 %s，每行宽 %s 个元素（sizes[%d]）：行可能重叠"),
    F(INF_ROWS_GAPS,
      "%s stores rows %s apart, %s elements wide at sizes[%d]: the elements between them are "
      "never written",
      "%s 存储的行相距 %s，每行宽 %s 个元素（sizes[%d]）：行之间的元素从未被写入"),
    F(INF_PASS_FEWER,
      "%s is moved in every pass of the grid-stride loop at line %d, and at sizes[%d] the "
      "launch's grid runs fewer threads than its bound %s: a thread passes again and the count "
      "does not hold",
      "%s 在第 %d 行网格跨步循环的每一轮中移动，而在 sizes[%d] 下启动的网格运行的线程少于其上界 %s：线程会再跑一轮，元素个数不成立"),
    F(INF_COUNT_TABLE,
      "count of %s %s: a table whose rows the values of another buffer pick (line %d), and "
      "neither the kernel nor its launcher says how many rows it has",
      "%s 的元素个数 %s：这是一张由另一个缓冲区的值选择行的表（第 %d 行），核函数及其启动函数都没有说明它有多少行"),
    F(INF_COUNT_TABLE_CHECKED,
      "count of %s %s: a table whose rows the values of another buffer pick (line %d), as many "
      "rows as the kernel's check of those values lets through",
      "%s 的元素个数 %s：这是一张由另一个缓冲区的值选择行的表（第 %d 行），行数为核函数对这些值的检查所允许的范围"),
    F(INF_VALUES_ROWS,
      "values of %s in [0, %s]: they pick rows of a table of %d rows (line %d)",
      "%s 的值在 [0, %s] 内：它们选择一张 %d 行的表中的行（第 %d 行）"),
    F(INF_VALUES_CLASS,
      "values of %s in [0, %s]: the kernel compares them with a remainder by a size (a class "
      "label), and every subscript they feed (line %d) stays inside its buffer at every size set",
      "%s 的值在 [0, %s] 内：核函数将它们与对某个大小取余的结果比较（类别标签），它们参与的每个下标（第 %d 行）在每组大小下都在缓冲区之内"),
    F(INF_VALUES_CHECKED,
      "values of %s in [0, %s]: the kernel skips any other before using it (a check against a "
      "size), and every subscript they feed (line %d) stays inside its buffer at every size set",
      "%s 的值在 [0, %s] 内：核函数在使用前跳过其他值（与某个大小比较的检查），它们参与的每个下标（第 %d 行）在每组大小下都在缓冲区之内"),
    F(INF_VALUES_DIGIT,
      "values of %s in [0, %s]: it is the lowest digit of a subscript whose other terms are "
      "multiples of a size (line %d), and every subscript it feeds stays inside its buffer at "
      "every size set",
      "%s 的值在 [0, %s] 内：它是一个下标的最低位，该下标的其他项都是某个大小的倍数（第 %d 行），它参与的每个下标在每组大小下都在缓冲区之内"),
    F(INF_GATHER_GUARDED,
      "the subscript at line %u holds a value read from a buffer, and guards keep it inside its "
      "buffer whatever the value (the count holds their bound)",
      "第 %u 行的下标含有从缓冲区读出的值，无论值为多少，保护条件都让它留在缓冲区之内（元素个数按其上界）"),
    F(INF_GATHER_INVALID,
      "the subscript at line %u is a value read from a buffer: the generated inputs are not "
      "valid indices (give that input an int(lo,hi) distribution)",
      "第 %u 行的下标是从缓冲区读出的值：生成的输入不是合法的下标（请给该输入指定 int(lo,hi) 分布）"),
    F(INF_STRUCT_AS,
      "%s points to %s, a struct of like fields: passed as %s",
      "%s 指向 %s，一个字段类型相同的结构体：按 %s 传入"),
    F(INF_TYPE_UNKNOWN,
      "%s is of type %s, which the generated harness does not know: passed as float",
      "%s 的类型为 %s，生成的测试框架不认识它：按 float 传入"),
    F(INF_INOUT_PARTIAL,
      "%s: its writes reach %s of its %s elements (%lld of %lld at sizes[0]): an inout, the "
      "elements not written keep their contents",
      "%s：它的写入到达 %s 个元素（共 %s 个；sizes[0] 下为 %lld / %lld）：作为 inout，未写入的元素保留原内容"),
    F(INF_INOUT_WINDOWS,
      "%s is written in windows clipped where each thread is (line %d): an inout, the elements "
      "no window reaches keep their contents",
      "%s 按每个线程所在位置裁剪的窗口写入（第 %d 行）：作为 inout，窗口到不了的元素保留原内容"),
    F(INF_INPUT,
      "%s is never written: an input",
      "%s 从未被写入：作为输入"),
    F(INF_INOUT_DATA,
      "%s is written only where values read from memory decide (line %d): an inout, the elements "
      "not written keep their contents",
      "%s 只在从内存读出的值决定的位置写入（第 %d 行）：作为 inout，未写入的元素保留原内容"),
    F(INF_INOUT_LOCAL,
      "%s is written only where a local that the kernel model does not follow decides (line %d): "
      "an inout, the elements not written keep their contents",
      "%s 只在内核模型无法跟踪的局部变量决定的位置写入（第 %d 行）：作为 inout，未写入的元素保留原内容"),
    F(INF_COUNT_VIA_POINTER,
      "%s is used through another pointer made from it at line %d: how many elements that "
      "reaches is not known (guessed %s%s)",
      "%s 通过第 %d 行由它得到的另一个指针使用：不知道那会访问多少元素（推测为 %s%s）"),
    F(INF_COUNT_UNKNOWN,
      "how many elements %s has is not in the index math or the host code: guessed %s%s",
      "%s 有多少元素既不在下标计算中也不在主机代码中：推测为 %s%s"),
    F(INF_COUNT_GUESSED,
      "count of %s guessed as %s%s",
      "%s 的元素个数推测为 %s%s"),
    F(INF_VALUE_INVENTED,
      "value of %s invented (no launch site gives it)",
      "%s 的值为编造值（没有启动点给出它）"),
    F(INF_NO_WRITES,
      "%s writes none of its pointers that the body shows: nothing to compare",
      "%s 没有写入函数体中可见的任何指针：没有可比较的输出"),
    F(INF_DYN_SHARED_SITE,
      "dynamic shared memory from the launch site at %s:%d",
      "动态共享内存来自 %s:%d 处的启动点"),
    F(INF_DYN_SHARED_UNKNOWN,
      "%s uses dynamic shared memory (line %d) and %s: how many bytes it needs is not known",
      "%s 使用动态共享内存（第 %d 行），且%s：不知道它需要多少字节"),
    F(INF_BYTES_FLOOR,
      "bytes: every buffer moved once (inouts twice) but %s, accessed in loops whose iterations "
      "a guard on the counter skips or a min/max clips: how many of its elements the kernel "
      "touches depends on the sizes, so bytes is a floor, never more than it moves",
      "bytes：每个缓冲区搬运一次（inout 两次），但 %s 在循环中访问，其迭代会被计数器上的保护条件跳过或被 min/max 裁剪：核函数访问其多少元素取决于大小，因此 "
      "bytes 是下限，绝不超过实际搬运量"),
    M(INF_BYTES_ONCE,
      "bytes: every buffer moved once (inouts twice)",
      "bytes：每个缓冲区搬运一次（inout 两次）"),
    F(INF_BYTES_GATHER,
      "bytes: %s read only by a gather (a subscript holding a value read from memory): counted "
      "by the elements the grid's threads pick, at most its count",
      "bytes：%s 只被 gather 读取（下标含有从内存读出的值）：按网格线程选取的元素计数，至多为其元素个数"),
    F(INF_BYTES_NONE,
      "bytes not given: every buffer (%s) is accessed in loops whose iterations a guard on the "
      "counter skips or a min/max clips, and how many of its elements the kernel touches depends "
      "on the sizes",
      "未给出 bytes：每个缓冲区（%s）都在循环中访问，其迭代会被计数器上的保护条件跳过或被 min/max 裁剪，核函数访问其多少元素取决于大小"),
    F(INF_STAYS_BELOW,
      "%s stays below %s: it is set only to constants and to elements of shared arrays that hold "
      "nothing but such values and loop variables below that bound",
      "%s 始终小于 %s：它只被赋值为常量，以及只存放此类值和小于该上界的循环变量的共享数组元素"),
    F(INF_FLOPS_FMA,
      "flops: 2 per multiply-add of the %s the kernel model recognises (%s)",
      "flops：核函数模型识别出的 %s 每次乘加计 2（%s）"),
    F(INF_FLOPS_ELEM,
      "flops: %ld per element of %s, from the value the kernel model shows it stores",
      "flops：每个元素 %ld 次（%s），来自核函数模型显示它存储的值"),
    F(INF_NUMEL,
      "%s is %s.numel() in the launcher, the element count of %s: %s",
      "%s 在启动函数中是 %s.numel()，即 %s 的元素个数：%s"),
    F(INF_DIM3_MEMBER,
      "%s, a member of the launcher's dim3 parameter %s, reads as %s (a size where the spec uses "
      "it)",
      "%s 是启动函数的 dim3 参数 %s 的成员，读作 %s（在 spec 使用它的地方是一个大小）"),
    F(INF_CONST_TABLE,
      "%s reads the __constant__ table %s, initialised in its declaration at line %d: its values "
      "come with the kernel image",
      "%s 读取 __constant__ 表 %s，它在第 %d 行的声明中初始化：其值随核函数映像一起提供"),
    F(INF_CONST_STATIC,
      "%s reads the __constant__ array %s (line %d), declared static inside a namespace or in an "
      "anonymous one: its symbol in the kernel image has a name private to the file, which the "
      "harness cannot fill (use a command-form spec)",
      "%s 读取 __constant__ 数组 %s（第 %d 行），它在命名空间内声明为 static "
      "或位于匿名命名空间中：它在核函数映像中的符号名是文件私有的，测试框架无法填充（请使用命令形式的 spec）"),
    F(INF_CONST_TYPE,
      "%s reads the __constant__ %s (line %d) of type %s, which the generated harness does not "
      "know: it cannot fill it (use a command-form spec)",
      "%s 读取 __constant__ %s（第 %d 行），其类型 %s 生成的测试框架不认识：无法填充（请使用命令形式的 spec）"),
    F(INF_CONST_INT,
      "%s reads the integer __constant__ %s (line %d): the harness would fill it with random "
      "integers, which are not valid offsets or sizes (give it a dist in the spec's "
      "\"constants\" by hand)",
      "%s 读取整数 __constant__ %s（第 %d 行）：测试框架会用随机整数填充，它们不是合法的偏移或大小（请在 spec 的 \"constants\" 中手动给它指定 "
      "dist）"),
    F(INF_CONST_SIZE,
      "the size of the __constant__ array %s that %s reads (line %d) could not be read from its "
      "declaration",
      "无法从声明中读出 %s 读取的 __constant__ 数组 %s（第 %d 行）的大小"),
    F(INF_CONST_TOO_MUCH,
      "%s reads more __constant__ data than one spec fills (%d arrays, %d bytes)",
      "%s 读取的 __constant__ 数据超过一个 spec 能填充的量（%d 个数组，%d 字节）"),
    F(INF_CONST_FILLED,
      "__constant__ %s: %lld %s from its declaration at line %d, filled like an input (the "
      "program sets it with cudaMemcpyToSymbol)",
      "__constant__ %s：%lld %s，来自第 %d 行的声明，像输入一样填充（程序用 cudaMemcpyToSymbol 设置它）"),
    F(INF_CONST_STRUCT,
      "__constant__ %s holds %s, a struct of like fields: filled as %s",
      "__constant__ %s 的元素是 %s，一个字段类型相同的结构体：按 %s 填充"),
    /* pieces of those notes */
    M(INF_FRAG_NO_SIZE_LEFT, "no size left to grow", "没有可再增大的大小"),
    M(INF_FRAG_NO_SIZE_CAN, "no size can grow", "没有可增大的大小"),
    M(INF_FRAG_STOPPED_BY, " stopped by ", "，受限于 "),
    M(INF_FRAG_HALVED_AND, "halved and ", "减半后又"),
    M(INF_FRAG_WITHIN, ", guessed counts included, within 16 MiB", "（含推测的元素个数），不超过 16 MiB"),
    M(INF_FRAG_SHORT, ", short of 16 MiB: no size left to halve", "，不足 16 MiB：没有可再减半的大小"),
    M(INF_FRAG_BRANCH_TAKEN, "in the branch the program takes", "程序会进入的分支中"),
    M(INF_FRAG_BRANCH_NONE, "in a branch no call takes", "没有调用会进入的分支中"),
    M(INF_FRAG_TILES, ", tiles side by side across it", "，各线程块在行内并排"),
    M(INF_FRAG_ONE_BLOCK, ", one block wide", "，一个线程块宽"),
    M(INF_FRAG_RAGGED, "one set not a multiple of the block", "其中一组不是线程块的倍数"),
    M(INF_FRAG_POW2, "powers of two", "2 的幂"),
    M(INF_FRAG_SHMEM_UNREAD, "the launch's size could not be read", "无法读取启动给出的大小"),
    M(INF_FRAG_SHMEM_NONE, "no launch gives its size", "没有启动给出其大小"),
    F(INF_NO_SPEC_VALIDATES, "no spec for %s validates: %s", "%s 的 spec 均未通过校验：%s"),
    M(INF_FRAG_GATHER_CAPPED, "it only sizes a count the grid gathers from, which capped the others", "它只决定网格从中 gather 的元素个数，这个元素个数限制了其他大小"),
    M(INF_FRAG_GUESS_CAPPED, "it only sizes a guessed count, which capped the others", "它只决定一个推测的元素个数，这个元素个数限制了其他大小"),
    M(INF_FRAG_GRID_OVER, "the grid launches over it", "网格按它启动"),
    M(INF_FRAG_OUTPUT_GRID, "an output's count holds it with a size of the grid", "输出的元素个数含有它和网格的一个大小"),
    M(INF_FRAG_STRIDES, "it strides an input beside a size of the grid", "它与网格的一个大小一起作为输入的跨距"),
    M(INF_FRAG_PER_THREAD_LOOPS, "only per-thread loops run over it", "只有每个线程内的循环遍历它"),
    M(INF_FRAG_SURE_BUFFERS, "the buffers whose counts are known", "元素个数已知的缓冲区"),
    M(INF_FRAG_BUFFERS, "the buffers", "缓冲区"),
    M(INF_FRAG_NO_EVAL, "a count that does not evaluate", "无法求值的元素个数"),
    M(INF_FRAG_PAST_8G, "the buffers past 8 GiB in all", "缓冲区总量超过 8 GiB"),
    M(INF_FRAG_PAST_DEVICE, "the grid past the device's limits or 2^31 threads", "网格超过设备限制或 2^31 个线程"),
    M(INF_FRAG_PAST_48K, "dynamic shared memory past 48 KiB", "动态共享内存超过 48 KiB"),
    M(INF_FRAG_NO_MEMORY, "no memory", "内存不足"),
    M(INF_FRAG_ASSERT, "a launcher's assert", "启动函数中的 assert"),
    M(INF_FRAG_ONE_PASS, "the launch's grid, which must cover the grid-stride loop in one pass", "启动的网格，它必须一轮覆盖网格跨步循环"),
    M(INF_FRAG_ROWS_SIDE, "the rows the kernel writes, which must stay side by side", "核函数写入的行，它们必须保持并排"),
    M(INF_FRAG_SEP, ", ", "，"),
    F(INF_FRAG_MULTIPLE_OF, "%s%s of %lld", "%s%s 为 %lld 的倍数"),
    F(INF_FRAG_PER_THREAD, "%s%s (%d per thread)", "%s%s（每线程 %d 个）"),
    F(INF_FRAG_AT_LINE, "%s%s (line %d)", "%s%s（第 %d 行）"),
    F(INF_FRAG_GREW, "%s%s %lld -> %lld (%s)", "%s%s %lld -> %lld（%s）"),
    F(INF_FRAG_WAS_NOW, "%s%s %lld -> %lld", "%s%s %lld -> %lld"),
    F(INF_FRAG_FROM_SITE, "the launch site at %s:%d", "%s:%d 处的启动点"),
    F(INF_FRAG_FROM_INST, "the explicit instantiation at %s:%d", "%s:%d 处的显式实例化"),
    M(INF_FRAG_MULTIPLIES, "the index math multiplies blockIdx.x by it", "下标计算用它乘以 blockIdx.x"),
    M(TRUST_WHY_COMPILER, "it names the compiler to run",
      "它指定要运行的编译器"),
    M(TRUST_WHY_FLAGS, "compiler flags can run or load programs (-ccbin, -Xcompiler, ...)",
      "编译器参数可以运行或加载程序（-ccbin、-Xcompiler 等）"),
    M(TRUST_WHY_SIMULATE, "it replaces the GPU with the simulator, whose numbers are not measurements",
      "它用模拟器代替 GPU，而模拟器的数字不是实测值"),
    M(TRUST_WHY_ENGINES, "an engine sends the kernel's code to its endpoint",
      "优化引擎会把核函数的代码发送到它的端点"),
    M(TRUST_WHY_IS_TRUSTED, "only the editor or the user's trust list can trust a folder",
      "只有编辑器或用户的信任列表才能信任一个文件夹"),
    M(TRUST_WHY_INCLUDE, "an entry has characters the compiler driver's shell would run (` $ ...)",
      "其中某一项含有编译器驱动的 shell 会执行的字符（` $ 等）"),
    M(TRUST_WHY_DEFAULT, "it needs a trusted folder",
      "它需要受信任的文件夹"),
    F(TRUST_KEY_IGNORED, "%s ignored: this folder is not trusted and %s. Trust the folder to use it (hkls trust %s, :HyperKernelTrust, the command hyperkernel.trustFolder, or VS Code's workspace trust).",
      "已忽略 %s：此文件夹不受信任，而%s。信任该文件夹后才能使用它（hkls trust %s、:HyperKernelTrust、命令 hyperkernel.trustFolder，或 VS Code 的工作区信任）。"),
    F(OPT_SPEC_NONE, "hkls optimize: no bench spec for %s next to %s, and none can be inferred: %s\n",
      "hkls optimize：%s 没有 bench spec（在 %s 旁），也无法推断：%s\n"),
    F(OPT_SPEC_SAVE_FAILED, "hkls optimize: cannot save the inferred spec %s: %s\n",
      "hkls optimize：无法保存推断出的 bench spec %s：%s\n"),
    F(OPT_SPEC_DRAFT, "hkls optimize: no bench spec for %s; the one inferred is not sure enough to run on:\n",
      "hkls optimize：%s 没有 bench spec；推断出的那份还不够可靠，不能直接运行：\n"),
    F(OPT_SPEC_DRAFT_SAVED, "The draft is saved at %s: check it, then run this again (it is found next to %s).\n",
      "草稿已保存到 %s：请检查后重新运行此命令（它会在 %s 旁被找到）。\n"),
    F(OPT_SPEC_INFERRED, "hkls optimize: no bench spec for %s; inferred one and saved it to %s:\n",
      "hkls optimize：%s 没有 bench spec；已推断出一份并保存到 %s：\n"),
    F(EP_DRAFT_CHECK, "the inferred spec needs checking: %s",
      "推断出的 bench spec 需要检查：%s"),
    F(EP_DRAFT_CHECK_EDIT, "the inferred spec needs checking: %s; edit and save %s and Optimize runs again",
      "推断出的 bench spec 需要检查：%s；编辑并保存 %s 后会重新运行优化"),
    F(LOG_CFG_STR_ARRAY, "%s: %s must be an array of at most %d strings; ignored",
      "%s：%s 必须是至多 %d 个字符串的数组；已忽略"),
    F(LOG_CFG_NOT_STRING, "%s: %s[%zu] is not a string; the list is ignored",
      "%s：%s[%zu] 不是字符串；已忽略整个列表"),
    F(LOG_CFG_UNKNOWN, "%s: unknown setting \"%.100s\" ignored",
      "%s：已忽略未知设置 \"%.100s\""),
    F(LOG_CFG_COMPILE_OBJECT, "%s: \"compile\" must be an object; ignored",
      "%s：\"compile\" 必须是对象；已忽略"),
    F(LOG_CFG_UNKNOWN_COMPILE, "%s: unknown setting \"compile.%.100s\" ignored",
      "%s：已忽略未知设置 \"compile.%.100s\""),
    F(LOG_CFG_TARGET, "%s: target must look like \"nvidia:sm_90\" or \"dcu:gfx906\", sm_XX one of %s; ignored",
      "%s：target 的形式应为 \"nvidia:sm_90\" 或 \"dcu:gfx906\"，sm_XX 为 %s 之一；已忽略"),
    F(LOG_CFG_COMPILE_ENABLED, "%s: compile.enabled must be true or false; ignored",
      "%s：compile.enabled 必须是 true 或 false；已忽略"),
    F(LOG_CFG_DEBOUNCE, "%s: compile.debounceMs must be an integer 0..60000; ignored",
      "%s：compile.debounceMs 必须是 0..60000 的整数；已忽略"),
    F(LOG_CFG_TIMEOUT, "%s: compile.timeoutMs must be an integer 1000..600000; ignored",
      "%s：compile.timeoutMs 必须是 1000..600000 的整数；已忽略"),
    F(LOG_CFG_NVCC, "%s: compile.nvcc must be a path; ignored",
      "%s：compile.nvcc 必须是路径；已忽略"),
    F(LOG_CFG_HIPCC, "%s: compile.hipcc must be a path; ignored",
      "%s：compile.hipcc 必须是路径；已忽略"),
    F(LOG_CFG_LANGUAGE, "%s: language must be \"auto\", \"en\" or \"zh-CN\"; ignored",
      "%s：language 必须是 \"auto\"、\"en\" 或 \"zh-CN\"；已忽略"),
    F(LOG_CFG_LOG_LEVEL, "%s: log.level must be error, warn, info, debug or trace",
      "%s：log.level 必须是 error、warn、info、debug 或 trace"),
    F(LOG_CFG_CANNOT_READ, "%s: cannot read it: %s",
      "%s：无法读取：%s"),
    F(LOG_CFG_NOT_ARRAY, "%s: not a JSON array (%s); ignored",
      "%s：不是 JSON 数组（%s）；已忽略"),
    F(LOG_CFG_CANNOT_QUEUE, "%s: cannot queue its read",
      "%s：无法排队读取"),
    F(LOG_CFG_ENGINE_ENTRY, "%s: engines[%zu] needs \"name\" and \"kind\" (builtin, openai or anthropic); ignored",
      "%s：engines[%zu] 需要 \"name\" 和 \"kind\"（builtin、openai 或 anthropic）；已忽略"),
    F(LOG_CFG_EPISODES_OBJECT, "%s: \"episodes\" must be an object; ignored",
      "%s：\"episodes\" 必须是对象；已忽略"),
    F(LOG_CFG_UNKNOWN_EPISODES, "%s: unknown setting \"episodes.%.100s\" ignored",
      "%s：已忽略未知设置 \"episodes.%.100s\""),
    F(LOG_CFG_EP_DB, "%s: episodes.db must be a path; ignored",
      "%s：episodes.db 必须是路径；已忽略"),
    F(LOG_CFG_EP_BUDGET, "%s: episodes.budget must be an integer 1..100000; ignored",
      "%s：episodes.budget 必须是 1..100000 的整数；已忽略"),
    F(LOG_CFG_EP_MINUTES, "%s: episodes.minutes must be a number in (0, 1440]; ignored",
      "%s：episodes.minutes 必须是 (0, 1440] 内的数；已忽略"),
    F(LOG_CFG_EP_SIMULATE, "%s: episodes.simulate must be true or false; ignored",
      "%s：episodes.simulate 必须是 true 或 false；已忽略"),
    F(LOG_CFG_ENGINES, "%s: engines must be an array of at most 32 objects; ignored",
      "%s：engines 必须是至多 32 个对象的数组；已忽略"),
    F(LOG_CFG_EP_NO_FLOOR, "%s: episodes.allowNoFloor must be true or false; ignored",
      "%s：episodes.allowNoFloor 必须是 true 或 false；已忽略"),
    F(LOG_CFG_EP_CHECK, "%s: episodes.check must be \"full\" or \"quick\"; ignored",
      "%s：episodes.check 必须是 \"full\" 或 \"quick\"；已忽略"),
    F(SPEC_DIAG_ERROR_PATH, "%s:%d: error: %s: %s", "%s:%d: error: %s: %s"),
    F(SPEC_DIAG_WARNING_PATH, "%s:%d: warning: %s: %s", "%s:%d: warning: %s: %s"),
    F(SPEC_DIAG_ERROR, "%s:%d: error: %s", "%s:%d: error: %s"),
    F(SPEC_DIAG_WARNING, "%s:%d: warning: %s", "%s:%d: warning: %s"),
    F(SPEC_UNKNOWN_FIELD_NEAR, "unknown field (did you mean \"%s\"?)", "未知字段（是否想写 \"%s\"？）"),
    M(SPEC_UNKNOWN_FIELD, "unknown field", "未知字段"),
    M(SPEC_MISSING, "missing (required)", "缺少此项（必填）"),
    F(SPEC_EXPECTED_STRING_GOT, "expected a string, got %s", "应为字符串，实际为%s"),
    M(SPEC_EMPTY_STRING, "empty string", "字符串为空"),
    F(SPEC_LAUNCH_VAR_ONLY, "'%s' may only be used in launch.grid and launch.shmem",
      "'%s' 只能用在 launch.grid 和 launch.shmem 中"),
    F(SPEC_UNKNOWN_VAR, "unknown variable '%s' (size variables: %s%s)", "未知变量 '%s'（规模变量：%s%s）"),
    F(SPEC_EXPECTED_EXPR_GOT, "expected a number or an expression string, got %s",
      "应为数字或表达式字符串，实际为%s"),
    F(SPEC_BAD_EXPR, "bad expression \"%s\": %s", "表达式 \"%s\" 有误：%s"),
    F(SPEC_EVAL_FAILED, "\"%s\" with sizes[%zu]: %s", "\"%s\" 在 sizes[%zu] 下：%s"),
    F(SPEC_FLOAT_EXPR, "\"%s\" is a float expression; %s must be an integer",
      "\"%s\" 是浮点表达式；%s必须是整数"),
    F(SPEC_OUT_OF_RANGE, "\"%s\" with sizes[%zu] is %g; %s must be in [%lld, %lld]",
      "\"%s\" 在 sizes[%zu] 下为 %g；%s必须在 [%lld, %lld] 之内"),
    F(SPEC_EXPECTED_ARRAY_GOT, "expected an array, got %s", "应为数组，实际为%s"),
    M(SPEC_MORE_THAN_64, "more than 64 entries", "超过 64 项"),
    F(SPEC_EXPECTED_NONEMPTY_GOT, "expected a non-empty string%s, got %s", "应为非空字符串%s，实际为%s"),
    F(SPEC_FLAG_DASH, "\"%s\": a compiler flag starts with '-'", "\"%s\"：编译选项须以 '-' 开头"),
    F(SPEC_NOT_TEMPLATE_ARG, "\"%s\": not a template argument", "\"%s\"：不是合法的模板参数"),
    F(SPEC_SIZES_MISSING, "missing (required): at least %d size sets, e.g. [{\"n\": 1000003}, {\"n\": 16777216}]",
      "缺少此项（必填）：至少 %d 组规模，例如 [{\"n\": 1000003}, {\"n\": 16777216}]"),
    F(SPEC_SIZES_NOT_ARRAY, "expected an array of size sets, got %s", "应为规模组的数组，实际为%s"),
    F(SPEC_SIZES_COUNT, "needs %d to %d size sets (one of them not a multiple of the block size); got %zu",
      "需要 %d 到 %d 组规模（其中一组不是线程块大小的整数倍）；实际为 %zu 组"),
    F(SPEC_SIZES_FIRST, "expected an object of 1 to %d size variables, e.g. {\"n\": 1000003}",
      "应为含 1 到 %d 个规模变量的对象，例如 {\"n\": 1000003}"),
    M(SPEC_SIZE_VAR_IDENT, "a size variable name must be an identifier", "规模变量名必须是标识符"),
    F(SPEC_SIZE_VAR_RESERVED, "'%s' is reserved for the launch", "'%s' 是启动配置的保留名"),
    F(SPEC_EXPECTED_OBJECT_GOT, "expected an object, got %s", "应为对象，实际为%s"),
    M(SPEC_SIZE_VAR_UNDEFINED, "not defined in sizes[0]: every size set defines the same variables",
      "未在 sizes[0] 中定义：每组规模须定义相同的变量"),
    F(SPEC_SIZE_VAR_MISSING, "missing size variable '%s'", "缺少规模变量 '%s'"),
    F(SPEC_SIZE_VALUE, "expected an integer in [1, 2^40], got %s", "应为 [1, 2^40] 内的整数，实际为%s"),
    F(SPEC_DIMS, "expected 1 to 3 dimensions, got %zu", "应为 1 到 3 维，实际为 %zu 维"),
    M(SPEC_LAUNCH_MISSING, "missing (required): {\"grid\": \"ceil_div(n, block_x)\", \"block\": 256}",
      "缺少此项（必填）：{\"grid\": \"ceil_div(n, block_x)\", \"block\": 256}"),
    F(SPEC_BLOCK_THREADS, "%lld threads per block with sizes[%zu]; at most 1024",
      "每个线程块 %lld 个线程（sizes[%zu]）；最多 1024 个"),
    M(SPEC_NO_RAGGED, "no size set is a non-multiple of the block size: add one (e.g. a prime such as 1000003) so bounds checks are exercised",
      "没有一组规模不是线程块大小的整数倍：请加一组（例如素数 1000003），以便覆盖边界检查"),
    F(SPEC_TOL_NOT_OBJECT, "expected an object {\"rtol\":..., \"atol\":..., \"l2\":...}, got %s",
      "应为对象 {\"rtol\":..., \"atol\":..., \"l2\":...}，实际为%s"),
    M(SPEC_EXPECTED_NONNEG, "expected a number >= 0", "应为 >= 0 的数"),
    F(SPEC_DISTS_NOT_ARRAY, "expected an array of distributions, got %s", "应为分布的数组，实际为%s"),
    F(SPEC_DISTS_COUNT, "needs %d to %d distributions; got %zu", "需要 %d 到 %d 个分布；实际为 %zu 个"),
    F(SPEC_DIST_NOT_STRING, "expected a string such as \"uniform(-1,1)\", got %s",
      "应为形如 \"uniform(-1,1)\" 的字符串，实际为%s"),
    M(SPEC_ZEROS_DISTS, "zeros is only allowed as the dist of an inout accumulator",
      "zeros 只能作为 inout 累加器的 dist"),
    M(SPEC_ZEROS_INPUT, "zeros is only allowed for an inout accumulator (e.g. histogram bins); inputs are never constant",
      "zeros 只能用于 inout 累加器（例如直方图的桶）；输入不能是常量"),
    F(SPEC_NARROW_INT_DIST, "integer %s values are truncated from a narrow float distribution; most elements will be equal: use int(lo,hi)",
      "整数 %s 的值由区间很窄的浮点分布截断而来，大部分元素会相等：请用 int(lo,hi)"),
    F(SPEC_ARG_DIST_SHAPE, "expected a distribution string, or an array of %zu (one per entry of distributions)",
      "应为分布字符串，或含 %zu 项的数组（distributions 每项一个）"),
    M(SPEC_EXPECTED_DIST_STRING, "expected a distribution string", "应为分布字符串"),
    F(SPEC_DIST_AT_SIZE, "at size set %zu the distribution's bounds give %s: %s",
      "在第 %zu 组尺寸下，分布的边界算出 %s：%s"),
    M(SPEC_ZEROS_ONLY_INOUT, "zeros is only allowed for an inout accumulator",
      "zeros 只能用于 inout 累加器"),
    M(SPEC_ARGS_MISSING, "missing (required): the kernel's parameters in order",
      "缺少此项（必填）：按顺序列出核函数的参数"),
    F(SPEC_ARGS_SHAPE, "expected an array of 1 to %d arguments in kernel parameter order",
      "应为按核函数参数顺序排列的 1 到 %d 个参数的数组"),
    F(SPEC_ARG_NOT_OBJECT, "expected an object {\"kind\":..., \"dtype\":...}, got %s",
      "应为对象 {\"kind\":..., \"dtype\":...}，实际为%s"),
    F(SPEC_ARG_KIND, "\"%s\": expected scalar, input, output or inout",
      "\"%s\"：应为 scalar、input、output 或 inout"),
    F(SPEC_UNKNOWN_DTYPE, "\"%s\": unknown dtype (float, double, half, bfloat16, int8/16/32/64, uint8/16/32/64)",
      "\"%s\"：未知的 dtype（float、double、half、bfloat16、int8/16/32/64、uint8/16/32/64）"),
    M(SPEC_SCALAR_VALUE_MISSING, "missing (required for a scalar)", "缺少此项（标量必填）"),
    F(SPEC_SCALAR_FLOAT, "\"%s\" is a float; %s is an integer type", "\"%s\" 是浮点数；%s 是整数类型"),
    M(SPEC_SCALAR_COUNT, "a scalar has no count (did you mean kind \"input\"?)",
      "标量没有 count（是否想写 kind \"input\"？）"),
    M(SPEC_SCALAR_DIST, "a scalar takes a value, not a dist", "标量取 value，不取 dist"),
    M(SPEC_TOL_ONLY_OUTPUTS, "only outputs and inouts have a tolerance",
      "只有 output 和 inout 才有 tolerance"),
    M(SPEC_BUFFER_COUNT_MISSING, "missing (required for a buffer): element count, e.g. \"n\"",
      "缺少此项（缓冲区必填）：元素个数，例如 \"n\""),
    F(SPEC_BUFFER_TOO_BIG, "\"%s\" with sizes[%zu] is %lld elements: over 64 GiB",
      "\"%s\" 在 sizes[%zu] 下为 %lld 个元素：超过 64 GiB"),
    M(SPEC_BUFFER_VALUE, "a buffer has a count and a dist, not a value",
      "缓冲区取 count 和 dist，不取 value"),
    M(SPEC_OUTPUT_DIST, "an output is poisoned before each run; give it no dist (use kind \"inout\" if the kernel reads it)",
      "output 在每次运行前会被填满哑值（poison）；不要给它 dist（核函数要读它时请用 kind \"inout\"）"),
    M(SPEC_NO_OUTPUT, "no output or inout argument: there would be nothing to check",
      "没有 output 或 inout 参数：没有可检查的结果"),
    F(SPEC_CONSTS_SHAPE, "expected an array of at most %d __constant__ variables, e.g. [{\"name\": \"mask\", \"dtype\": \"float\", \"count\": 25}]",
      "应为至多 %d 个 __constant__ 变量的数组，例如 [{\"name\": \"mask\", \"dtype\": \"float\", \"count\": 25}]"),
    F(SPEC_CONST_NOT_OBJECT, "expected an object {\"name\":..., \"dtype\":..., \"count\":...}, got %s",
      "应为对象 {\"name\":..., \"dtype\":..., \"count\":...}，实际为%s"),
    F(SPEC_CONST_NAME, "\"%s\": not the name of a __constant__ variable (an identifier, or one qualified by namespaces: ns::mask)",
      "\"%s\"：不是 __constant__ 变量名（应为标识符，或带命名空间限定的标识符：ns::mask）"),
    F(SPEC_CONST_DUP, "\"%s\" is already constants[%zu]", "\"%s\" 已是 constants[%zu]"),
    M(SPEC_CONST_COUNT_MISSING, "missing (required): element count, e.g. 25 for __constant__ float mask[5][5]",
      "缺少此项（必填）：元素个数，例如 __constant__ float mask[5][5] 为 25"),
    F(SPEC_CONSTS_TOO_BIG, "%lld bytes of __constant__ data with sizes[%zu]; the device holds at most %d",
      "__constant__ 数据共 %lld 字节（sizes[%zu]）；设备最多容纳 %d 字节"),
    F(SPEC_SEEDS_SHAPE, "expected an array of %d to %d integer seeds%s", "应为 %d 到 %d 个整数随机种子的数组%s"),
    M(SPEC_EXPECTED_NONNEG_INT, "expected an integer >= 0", "应为 >= 0 的整数"),
    F(SPEC_SEED_REPEATS, "seed %lld repeats seeds[%zu]", "随机种子 %lld 与 seeds[%zu] 重复"),
    F(SPEC_NOT_KERNEL_NAME, "\"%s\" is not a kernel name", "\"%s\" 不是核函数名"),
    F(SPEC_CANNOT_READ_ERRNO, "cannot read %s: %s", "无法读取 %s：%s"),
    M(SPEC_EXPECTED_STRING, "expected a string", "应为字符串"),
    F(SPEC_WORKDIR, "cannot enter the work directory %s: %s", "无法进入工作目录 %s：%s"),
    F(SPEC_BAD_REGEX, "bad POSIX extended regex \"%s\": %s", "POSIX 扩展正则表达式 \"%s\" 有误：%s"),
    M(SPEC_TIMEOUT, "expected seconds in (0, 86400]", "应为 (0, 86400] 内的秒数"),
    F(SPEC_INCLUDE_DIRS_SHAPE, "expected an array of folders, got %s", "应为目录的数组，实际为%s"),
    F(SPEC_INCLUDE_DIR_NOT_STRING, "expected a folder (a non-empty string), got %s",
      "应为目录（非空字符串），实际为%s"),
    F(SPEC_NOT_A_FOLDER, "not a folder: %s", "不是目录：%s"),
    F(SPEC_EXPECTED_BOOL_GOT, "expected true or false, got %s", "应为 true 或 false，实际为%s"),
    F(SPEC_TOO_LARGE, "spec is larger than %u bytes", "bench spec 超过 %u 字节"),
    F(SPEC_BAD_JSON, "not valid JSON: %s (column %d)", "不是合法的 JSON：%s（第 %d 列）"),
    M(SPEC_NOT_OBJECT, "a bench spec is a JSON object", "bench spec 应为 JSON 对象"),
    F(SPEC_FORM, "\"%s\": expected \"harness\" or \"command\"",
      "\"%s\"：应为 \"harness\" 或 \"command\""),
    F(SPEC_CANNOT_OPEN, "cannot open %s: %s", "无法打开 %s：%s"),
    F(SPEC_CANNOT_READ, "cannot read %s", "无法读取 %s"),
    F(SPEC_DIST_UNKNOWN, "unknown distribution '%s' (uniform(lo,hi), normal(mu,sigma), int(lo,hi), ones_sparse(p), zeros)",
      "未知的分布 '%s'（uniform(lo,hi)、normal(mu,sigma)、int(lo,hi)、ones_sparse(p)、zeros）"),
    F(SPEC_DIST_BAD_NUMBER, "'%s': bad or extra number in the arguments", "'%s'：参数中有错误或多余的数字"),
    F(SPEC_DIST_EXPECTED_COMMA, "'%s': expected ',' or ')'", "'%s'：应为 ',' 或 ')'"),
    F(SPEC_DIST_TRAILING, "'%s': unexpected text after the distribution", "'%s'：分布之后有多余的文字"),
    F(SPEC_DIST_UNIFORM, "'%s': needs lo < hi (a constant input hides bugs)",
      "'%s'：需要 lo < hi（常量输入会掩盖错误）"),
    F(SPEC_DIST_NORMAL, "'%s': needs sigma > 0", "'%s'：需要 sigma > 0"),
    F(SPEC_DIST_INT, "'%s': needs integers lo < hi", "'%s'：需要整数 lo < hi"),
    F(SPEC_DIST_SPARSE, "'%s': needs 0 < p < 1", "'%s'：需要 0 < p < 1"),
    F(SPEC_NO_SIZE_SET, "no size set %zu", "没有第 %zu 组规模"),
    M(SPEC_OUT_OF_MEMORY, "out of memory", "内存不足"),
    F(SPEC_DIST_NARGS_ONE, "'%s': %s takes %d argument", "'%s'：%s 需要 %d 个参数"),
    F(SPEC_DIST_NARGS, "'%s': %s takes %d arguments", "'%s'：%s 需要 %d 个参数"),
    M(SPEC_T_OBJECT, "an object", "对象"),
    M(SPEC_T_ARRAY, "an array", "数组"),
    M(SPEC_T_STRING, "a string", "字符串"),
    M(SPEC_T_INTEGER, "an integer", "整数"),
    M(SPEC_T_NUMBER, "a number", "数字"),
    M(SPEC_T_BOOLEAN, "a boolean", "布尔值"),
    M(SPEC_T_NULL, "null", "null"),
    M(SPEC_NONE, "none", "无"),
    M(SPEC_LAUNCH_VARS, "; launch variables: block_x, block_y, block_z, sm_count",
      "；启动变量：block_x、block_y、block_z、sm_count"),
    M(SPEC_NOT_FINITE, "not finite", "不是有限值"),
    M(SPEC_OR_INTEGER, " or an integer", "或整数"),
    M(SPEC_ONE_OUTSIDE, "one outside", "超出范围的整数"),
    M(SPEC_TOO_FEW_SEEDS, " (too few: correctness needs several inputs)", "（太少：正确性检查需要多组输入）"),
    M(SPEC_WHAT_BLOCK_DIM, "a block dimension", "线程块维度"),
    M(SPEC_WHAT_GRID_DIM, "a grid dimension", "网格维度"),
    M(SPEC_WHAT_SHMEM, "dynamic shared memory (bytes)", "动态共享内存（字节）"),
    M(SPEC_WHAT_VALUE, "the value", "取值"),
    M(SPEC_WHAT_COUNT, "the element count", "元素个数"),
    M(SPEC_WHAT_CONST_COUNT, "the element count of a __constant__ array (at most 64 KiB)",
      "__constant__ 数组的元素个数（至多 64 KiB）"),
    F(EXPR_AT, "column %zu: %s (at '%.12s')", "第 %zu 列：%s（位于 '%.12s'）"),
    F(EXPR_AT_END, "column %zu: %s (at end of expression)", "第 %zu 列：%s（位于表达式末尾）"),
    F(EXPR_TOO_DEEP, "nested deeper than %d", "嵌套超过 %d 层"),
    M(EXPR_EMPTY, "no expression", "没有表达式"),
    F(EXPR_TOO_LONG, "expression longer than %d characters", "表达式超过 %d 个字符"),
    F(EXPR_UNKNOWN_VAR, "unknown variable '%s' (column %d)", "未知变量 '%s'（第 %d 列）"),
    F(EXPR_OVERFLOW, "integer overflow (column %d)", "整数溢出（第 %d 列）"),
    F(EXPR_INT_OPERANDS, "%s needs integer operands (column %d)", "%s 需要整数操作数（第 %d 列）"),
    F(EXPR_DIV_ZERO, "division by zero (column %d)", "除以零（第 %d 列）"),
    F(EXPR_NOT_FINITE, "result is not finite (column %d)", "结果不是有限值（第 %d 列）"),
    M(EXPR_EXPECTED_PAREN_AFTER_FN, "expected '(' after function name", "函数名之后应为 '('"),
    F(EXPR_TWO_ARGS_COMMA, "%s takes two arguments: expected ','", "%s 需要两个参数：应为 ','"),
    F(EXPR_TWO_ARGS_PAREN, "%s takes two arguments: expected ')'", "%s 需要两个参数：应为 ')'"),
    M(EXPR_EXPECTED_CLOSE, "expected ')'", "应为 ')'"),
    M(EXPR_NUMBER_TOO_LONG, "number too long", "数字过长"),
    M(EXPR_BAD_NUMBER, "bad number", "数字有误"),
    M(EXPR_UNKNOWN_FN, "unknown function (only min, max, ceil_div)", "未知函数（只支持 min、max、ceil_div）"),
    M(EXPR_EXPECTED_OPERAND, "expected a number, a variable or '('", "应为数字、变量或 '('"),
    M(EXPR_EXPECTED_VALUE, "expected a value", "应为一个值"),
    F(CLI_NEEDS_VALUE, "hkls %s: %s needs a value\n", "hkls %s：%s 需要一个值\n"),
    F(CLI_NO_DB_PATH, "hkls %s: no database path: pass --db, or set HK_DB or HOME\n",
      "hkls %s：没有数据库路径：请传入 --db，或设置 HK_DB 或 HOME\n"),
    F(CLI_OUT_OF_MEMORY, "hkls %s: out of memory\n", "hkls %s：内存不足\n"),
    F(CLI_NO_DB, "hkls %s: no history database at %s (nothing optimized yet? pass --db PATH or set HK_DB)\n",
      "hkls %s：%s 处没有历史数据库（还没有优化过？请传入 --db PATH 或设置 HK_DB）\n"),
    F(CLI_DB_OPEN, "hkls %s: cannot open the history database %s: %s\n",
      "hkls %s：无法打开历史数据库 %s：%s\n"),
    F(CLI_DB_MARK, "hkls %s: note: could not mark interrupted episodes: %s\n",
      "hkls %s：注意：无法标记被中断的优化任务：%s\n"),
    F(CLI_NO_EPISODE, "hkls %s: no episode '%s' (see hkls history)\n",
      "hkls %s：没有优化任务 '%s'（见 hkls history）\n"),
    M(CLI_HISTORY_USAGE, "usage: hkls history [FILE] [--kernel NAME] [--db PATH] [--json] [--limit N]\nEpisodes and version chains of the kernels of FILE (default: all kernels).\n",
      "用法：hkls history [FILE] [--kernel NAME] [--db PATH] [--json] [--limit N]\n列出 FILE 中各核函数的优化任务和版本链（默认：所有核函数）。\n"),
    F(CLI_HISTORY_UNEXPECTED, "hkls history: unexpected argument '%s'\n",
      "hkls history：多余的参数 '%s'\n"),
    F(CLI_HISTORY_LIMIT, "hkls history: --limit %s: expected 1 to 10000\n",
      "hkls history：--limit %s：应为 1 到 10000\n"),
    M(CLI_HISTORY_OOM, "hkls history: out of memory\n", "hkls history：内存不足\n"),
    M(CLI_REPORT_USAGE, "usage: hkls report EPISODE [--format md|html|json] [--db PATH] [-o FILE]\nEPISODE: an episode id or name (see hkls history).\n",
      "用法：hkls report EPISODE [--format md|html|json] [--db PATH] [-o FILE]\nEPISODE：优化任务的编号或名称（见 hkls history）。\n"),
    F(CLI_REPORT_UNEXPECTED, "hkls report: unexpected argument '%s'\n", "hkls report：多余的参数 '%s'\n"),
    F(CLI_REPORT_FORMAT, "hkls report: --format %s: expected md, html or json\n",
      "hkls report：--format %s：应为 md、html 或 json\n"),
    F(CLI_REPORT_RENDER, "hkls report: episode #%lld: %s%s%s\n", "hkls report：优化任务 #%lld：%s%s%s\n"),
    F(CLI_REPORT_WRITE, "hkls report: cannot write %s: %s\n", "hkls report：无法写入 %s：%s\n"),
    F(CLI_WROTE, "wrote %s\n", "已写入 %s\n"),
    M(CLI_DIFF_TOO_LARGE, "... (diff too large to show)\n", "……（差异太大，无法显示）\n"),
    F(CLI_NO_DIFF, "(no diff: %s)\n", "（无差异：%s）\n"),
    F(CLI_APPLY_ANALYSE, "hkls apply: cannot analyse %s: %s\n", "hkls apply：无法分析 %s：%s\n"),
    F(CLI_APPLY_KERNEL_GONE, "hkls apply: refused: %s no longer defines kernel %s (renamed or removed since episode #%lld began)\n",
      "hkls apply：已拒绝：%s 中已没有核函数 %s（优化任务 #%lld 开始后被改名或删除）\n"),
    F(CLI_APPLY_KERNEL_CHANGED, "hkls apply: refused: kernel %s in %s (lines %d-%d) changed since episode #%lld began, so v%d would overwrite your edits.\nIts text no longer matches the episode's (content hash %.12s, now %.12s). What changed:\n",
      "hkls apply：已拒绝：核函数 %s（%s 第 %d-%d 行）在优化任务 #%lld 开始后被修改过，应用 v%d 会覆盖你的修改。\n它的文本与优化任务记录的不再一致（内容哈希 %.12s，现在为 %.12s）。改动如下：\n"),
    M(CLI_APPLY_KERNEL_CHANGED_HINT, "Start a new episode on the current text, or restore the kernel and apply again.\n",
      "请在当前文本上开始新的优化任务，或恢复该核函数后再应用。\n"),
    F(CLI_APPLY_FLAGS_NOTE, "note: v%d was compiled with", "注意：v%d 编译时使用了"),
    M(CLI_APPLY_FLAGS_ADD, ": add that to the file's build\n", "：请把它加到该文件的构建中\n"),
    F(CLI_APPLY_LAUNCH_JSON, "note: v%d's launch configuration cannot be read (%s): the launch sites were not changed",
      "注意：无法读取 v%d 的启动配置（%s）：未修改核函数的启动处"),
    F(CLI_APPLY_LAUNCH_ANALYSE, "note: the launch sites were not changed: the new text cannot be analysed (%s)",
      "注意：未修改核函数的启动处：无法分析新的文本（%s）"),
    F(CLI_APPLY_LAUNCH_REWRITE, "note: the launch sites were not changed: %s", "注意：未修改核函数的启动处：%s"),
    F(CLI_APPLY_LAUNCH_NOT_WRITTEN, "note: v%d's launch was not written: %s",
      "注意：未写入 v%d 的启动配置：%s"),
    F(CLI_APPLY_LAUNCH, "launch: %s", "启动配置：%s"),
    F(CLI_APPLY_NOTE, "note: %s", "注意：%s"),
    M(CLI_APPLY_USAGE, "usage: hkls apply EPISODE [--version N] [--db PATH] [--dry-run]\nWrites version N (default: the episode's best) of the episode's kernel into\nits file, only if the kernel is still as the episode found it, and sets the\nkernel's launch sites in that file to the grid and block it was measured with.\n",
      "用法：hkls apply EPISODE [--version N] [--db PATH] [--dry-run]\n把优化任务中核函数的版本 N（默认：最佳版本）写回它的文件，前提是该核函数仍与\n优化任务开始时一致；并把该文件中这个核函数的启动处改为测量时所用的网格和线程块。\n"),
    F(CLI_APPLY_UNEXPECTED, "hkls apply: unexpected argument '%s'\n", "hkls apply：多余的参数 '%s'\n"),
    F(CLI_APPLY_VERSION_ARG, "hkls apply: --version %s: expected a version number (3 or v3)\n",
      "hkls apply：--version %s：应为版本号（3 或 v3）\n"),
    F(CLI_APPLY_NO_VERSION, "hkls apply: kernel %s has no version v%ld (see hkls history %s)\n",
      "hkls apply：核函数 %s 没有版本 v%ld（见 hkls history %s）\n"),
    F(CLI_APPLY_NO_BEST, "hkls apply: episode #%lld (%s) has no verified version faster than its baseline: nothing to apply (pick one with --version N)\n",
      "hkls apply：优化任务 #%lld（%s）没有比基线更快且经过验证的版本：没有可应用的内容（可用 --version N 指定一个）\n"),
    F(CLI_APPLY_VERSION_GET, "hkls apply: version %lld: %s\n", "hkls apply：版本 %lld：%s\n"),
    F(CLI_APPLY_OTHER_KERNEL, "hkls apply: v%d belongs to another kernel\n",
      "hkls apply：v%d 属于另一个核函数\n"),
    F(CLI_APPLY_NOT_VERIFIED, "hkls apply: v%d is not verified (%s%s%s): only verified versions are applied\n",
      "hkls apply：v%d 未通过验证（%s%s%s）：只应用经过验证的版本\n"),
    F(CLI_APPLY_NO_BASE, "hkls apply: episode #%lld has no recorded starting text (it failed before its baseline): cannot check the file is unchanged\n",
      "hkls apply：优化任务 #%lld 没有记录起始文本（它在基线测量之前就失败了）：无法确认文件未被修改\n"),
    F(CLI_APPLY_READ, "hkls apply: cannot read %s: %s\n", "hkls apply：无法读取 %s：%s\n"),
    F(CLI_APPLY_STAT, "hkls apply: cannot stat %s: %s\n", "hkls apply：无法获取 %s 的状态：%s\n"),
    F(CLI_APPLY_BASE_NO_KERNEL, "hkls apply: the episode's starting text has no kernel %s (%s)\n",
      "hkls apply：优化任务的起始文本中没有核函数 %s（%s）\n"),
    F(CLI_APPLY_CHANGE, "hkls apply: v%d: %s\n", "hkls apply：v%d：%s\n"),
    F(CLI_APPLY_VER_NO_KERNEL, "hkls apply: v%d's text has no kernel %s\n",
      "hkls apply：v%d 的文本中没有核函数 %s\n"),
    F(CLI_APPLY_STALE_FILE, "hkls apply: refused: v%d also changes %s outside kernel %s (line %d of the version), and the file changed elsewhere since episode #%lld began, so that part cannot be applied safely.\nApply it by hand (hkls report %lld shows the diff), or restore the file to the episode's text.\n",
      "hkls apply：已拒绝：v%d 还修改了 %s 中核函数 %s 之外的内容（该版本第 %d 行），而该文件在优化任务 #%lld 开始后其他地方也被修改过，这部分无法安全应用。\n请手工应用（hkls report %lld 会显示差异），或把文件恢复为优化任务开始时的文本。\n"),
    M(CLI_APPLY_OOM, "hkls apply: out of memory\n", "hkls apply：内存不足\n"),
    F(CLI_APPLY_ALREADY, "%s already holds v%d of kernel %s: nothing to do\n",
      "%s 已包含 v%d（核函数 %s）：无需操作\n"),
    F(CLI_APPLY_DRY, "dry run: would apply v%d (speedup %s) of episode #%lld to %s\n",
      "试运行：将把 v%d（加速比 %s，优化任务 #%lld）应用到 %s\n"),
    F(CLI_APPLY_WRITE, "hkls apply: cannot write %s: %s\n", "hkls apply：无法写入 %s：%s\n"),
    F(CLI_APPLY_DONE, "applied v%d (speedup %s) of episode #%lld to %s: kernel %s, line %d\n",
      "已把 v%d（加速比 %s，优化任务 #%lld）应用到 %s：核函数 %s，第 %d 行\n"),
    M(CLI_DB_NEWER, "it was written by a newer hkls", "它是由更新版本的 hkls 写入的"),
    M(CLI_REPORT_TOO_LARGE, "the report is too large", "报告太大"),
    M(CLI_APPLY_NO_SUCH_FILE, "no such file", "文件不存在"),
    M(CLI_DIFF_WAS, "kernel when the episode began", "优化任务开始时的核函数"),
    M(CLI_DIFF_NOW, "kernel in the file now", "文件中现在的核函数"),
    F(CLI_APPLY_MEASURED_MUL, "v%d was measured with its grid multiplied by %lld along %s, and the launch sites cannot be changed to that: %s",
      "v%d 测量时网格乘以 %lld（沿 %s 方向），而核函数的启动处无法改成这样：%s"),
    F(CLI_APPLY_MEASURED_DIV, "v%d was measured with its grid divided by %lld along %s, and the launch sites cannot be changed to that: %s",
      "v%d 测量时网格除以 %lld（沿 %s 方向），而核函数的启动处无法改成这样：%s"),
    F(CLI_APPLY_REFUSED_MUL, "hkls apply: refused: %s\nMultiply the grid at the launch sites by hand and apply the kernel from the diff (hkls report %lld).\n",
      "hkls apply：已拒绝：%s\n请手工把启动处的网格乘上相应倍数，再按差异应用该核函数（hkls report %lld）。\n"),
    F(CLI_APPLY_REFUSED_DIV, "hkls apply: refused: %s\nDivide the grid at the launch sites by hand and apply the kernel from the diff (hkls report %lld).\n",
      "hkls apply：已拒绝：%s\n请手工把启动处的网格除以相应倍数，再按差异应用该核函数（hkls report %lld）。\n"),
    M(CLI_SKILLS_USAGE, "usage: hkls skills [--dir DIR] [--hardware ARCH] [--class CLASS] [--db PATH] [--json]\nLoads and validates the skills, then lists id, hardware, class, rewrite and\nrecord (tries that helped, mean and best speedup) in the order the engine\ntries them.\n  --dir DIR        skills directory (default: $HK_SKILLS_DIR, else\n                   <exe>/../share/hyperkernel/skills, else the source tree's)\n  --hardware ARCH  only skills for ARCH (sm_90, sm_80, gfx906, gfx90a, ...);\n                   the record is then the one on ARCH\n  --class CLASS    memory-bound, compute-bound or latency-bound\n  --db PATH        history database with the record (default: $HK_DB or\n                   the default path, when that file exists)\n  --json           every field of every skill, and its record, as JSON\nExit 0, 1 when a skill file is broken or the database cannot be read, 2 for\nusage errors.\n",
      "用法：hkls skills [--dir DIR] [--hardware ARCH] [--class CLASS] [--db PATH] [--json]\n加载并校验优化技能，然后按引擎尝试的顺序列出编号、硬件、类别、代码改写和\n战绩（有效的尝试次数、平均和最佳加速比）。\n  --dir DIR        优化技能目录（默认：$HK_SKILLS_DIR，其次\n                   <exe>/../share/hyperkernel/skills，再次源码树中的目录）\n  --hardware ARCH  只列出适用于 ARCH 的优化技能（sm_90、sm_80、gfx906、gfx90a 等）；\n                   此时战绩也只统计 ARCH 上的\n  --class CLASS    memory-bound（访存密集型）、compute-bound（计算密集型）或\n                   latency-bound（延迟密集型）\n  --db PATH        含战绩的历史数据库（默认：$HK_DB，或默认路径处的文件，\n                   如果存在）\n  --json           以 JSON 输出每个优化技能的所有字段及其战绩\n退出码：0；优化技能文件有误或无法读取数据库时为 1；用法错误为 2。\n"),
    F(CLI_SKILLS_NEEDS_VALUE, "hkls skills: %s needs a value\n", "hkls skills：%s 需要一个值\n"),
    M(CLI_SKILLS_UNTRIED, "untried", "未尝试"),
    F(CLI_SKILLS_MEAN, ", mean %.2fx", "，平均 %.2fx"),
    F(CLI_SKILLS_BEST, ", best %.2fx", "，最佳 %.2fx"),
    M(CLI_SKILLS_OOM, "hkls skills: out of memory\n", "hkls skills：内存不足\n"),
    F(CLI_SKILLS_NO_DB, "hkls skills: no history database at %s\n", "hkls skills：%s 处没有历史数据库\n"),
    F(CLI_SKILLS_DB_OPEN, "hkls skills: cannot open the history database %s: %s\n",
      "hkls skills：无法打开历史数据库 %s：%s\n"),
    F(CLI_SKILLS_UNKNOWN_ARG, "hkls skills: unknown argument '%s'\n", "hkls skills：未知参数 '%s'\n"),
    F(CLI_SKILLS_UNKNOWN_CLASS, "hkls skills: unknown class '%s' (memory-bound, compute-bound, latency-bound)\n",
      "hkls skills：未知类别 '%s'（memory-bound、compute-bound、latency-bound）\n"),
    M(CLI_SKILLS_HARDWARE, "hkls skills: --hardware needs an arch such as sm_90 or gfx906\n",
      "hkls skills：--hardware 需要一个架构名，例如 sm_90 或 gfx906\n"),
    F(CLI_SKILLS_LOAD, "hkls skills: cannot load the skills in %s (%s):\n%s\n",
      "hkls skills：无法加载 %s 中的优化技能（%s）：\n%s\n"),
    F(CLI_SKILLS_RECORD, "hkls skills: reading the record in %s: %s\n",
      "hkls skills：读取 %s 中的战绩时出错：%s\n"),
    F(CLI_SKILLS_FOR, " for %s", "，适用于 %s"),
    F(CLI_SKILLS_RECORD_FROM, "; record from %s", "；战绩来自 %s"),
    F(CLI_SKILLS_CLASS, " (%s)", "（%s）"),
    F(CLI_SKILLS_HELPED_ONE, "%lld/%lld helped on %lld/%lld kernel",
      "%lld/%lld 次有效，在 %lld/%lld 个核函数上"),
    F(CLI_SKILLS_HELPED, "%lld/%lld helped on %lld/%lld kernels",
      "%lld/%lld 次有效，在 %lld/%lld 个核函数上"),
    F(CLI_SKILLS_COUNT_ONE, "%zu skill in %s", "%zu 个优化技能，位于 %s"),
    F(CLI_SKILLS_COUNT, "%zu skills in %s", "%zu 个优化技能，位于 %s"),
    M(CLI_SKILLS_HEAD_HARDWARE, "HARDWARE", "硬件"),
    M(CLI_SKILLS_HEAD_CLASS, "CLASS", "类别"),
    M(CLI_SKILLS_HEAD_REWRITE, "REWRITE", "代码改写"),
    M(CLI_SKILLS_HEAD_RECORD, "RECORD", "战绩"),
    M(CLI_SKILLS_HEAD_TITLE, "TITLE", "标题"),
    F(CLI_MAIN_LOG_LEVEL, "hkls: HK_LOG_LEVEL=%s is not a level (error, warn, info, debug or trace); logging warnings\n",
      "hkls：HK_LOG_LEVEL=%s 不是日志级别（error、warn、info、debug 或 trace）；只记录警告\n"),
    F(CLI_MAIN_UNKNOWN_COMMAND, "hkls: unknown command '%s'\n", "hkls：未知命令 '%s'\n"),
    F(CLI_MAIN_NEEDS_VALUE, "hkls: %s needs a value\n", "hkls：%s 需要一个值\n"),
    F(CLI_MAIN_UNKNOWN_ARG, "hkls: unknown argument '%s'\n", "hkls：未知参数 '%s'\n"),
    M(CLI_MAIN_USAGE, "usage: hkls [--stdio] [--log FILE] [--log-level LEVEL]\n       hkls COMMAND [ARGS...]\n       hkls --version | --help\n\nWithout a command, hkls speaks the Language Server Protocol on stdin/stdout.\n  --stdio            use stdin/stdout (the default)\n  --log FILE         append the log to FILE instead of stderr\n  --log-level LEVEL  error, warn (default), info, debug or trace\n  --version          print the version\nA command logs warnings to stderr; HK_LOG_LEVEL=LEVEL in its environment asks for\nmore (debug: every benchmark process with its wall time).\n",
      "用法：hkls [--stdio] [--log FILE] [--log-level LEVEL]\n      hkls COMMAND [ARGS...]\n      hkls --version | --help\n\n不带命令时，hkls 在 stdin/stdout 上提供语言服务器协议（LSP）服务。\n  --stdio            使用 stdin/stdout（默认）\n  --log FILE         把日志追加到 FILE，而不是 stderr\n  --log-level LEVEL  error、warn（默认）、info、debug 或 trace\n  --version          显示版本\n命令把警告写到 stderr；在环境中设置 HK_LOG_LEVEL=LEVEL 可以输出更多\n（debug：每个基准测试进程及其耗时）。\n"),
    M(CLI_MAIN_COMMANDS, "\ncommands:\n", "\n命令：\n"),
    M(CLI_CMD_CHECK, "compile files; print kernels, resources and errors (FILE:LINE)",
      "编译文件；显示核函数、资源占用和错误（FILE:LINE）"),
    M(CLI_CMD_DOCTOR, "report toolchains, GPUs, profilers and runners found here",
      "报告本机找到的工具链、GPU、性能分析工具和运行器"),
    M(CLI_CMD_OPTIMIZE, "optimize one kernel on the GPU (an episode); --help for options",
      "在 GPU 上优化一个核函数（一次优化任务）；--help 查看选项"),
    M(CLI_CMD_VERIFY, "judge one candidate .cu against a spec's baseline",
      "按 bench spec 的基线评判一个候选版本 .cu"),
    M(CLI_CMD_HISTORY, "episodes and version chains of a file's kernels (--json)",
      "文件中各核函数的优化任务和版本链（--json）"),
    M(CLI_CMD_REPORT, "print an episode's report (--format md|html|json, -o FILE)",
      "输出优化任务的报告（--format md|html|json，-o FILE）"),
    M(CLI_CMD_SPEC, "write a harness-form bench spec skeleton for a kernel (-o FILE)",
      "为核函数生成 harness 形式的 bench spec 骨架（-o FILE）"),
    M(CLI_CMD_SKILLS, "list and validate the skills knowledge base (--json, --hardware)",
      "列出并校验优化技能知识库（--json，--hardware）"),
    M(CLI_CMD_REWRITES, "a kernel's class and which rewrites apply, or what stops each",
      "核函数的类别，以及哪些代码改写适用、哪些被什么挡住"),
    M(CLI_CMD_APPLY, "write a verified version into its file, if the kernel is unchanged",
      "在核函数未被修改时，把经过验证的版本写回文件"),
    M(CLI_CMD_TRUST, "trust a folder's .hyperkernel.json (--list, --remove)",
      "信任某个目录的 .hyperkernel.json（--list，--remove）"),
    M(CLI_CHECK_USAGE, "usage: hkls check FILE... [--target nvidia:sm_90|dcu:gfx906] [--json]\n                  [--block N] [--timeout SEC] [--compiler PATH]\n                  [-I DIR] [-D NAME[=VALUE]] [--flag FLAG]\nCompiles each file and prints its kernels' registers, spills, shared memory\nand occupancy. The default target is dcu:gfx906 for .hip files and\nnvidia:sm_90 otherwise. Exit 0: all compiled; 1: compile errors; 2: could not\ncheck (usage, unreadable file, no compiler).\n",
      "用法：hkls check FILE... [--target nvidia:sm_90|dcu:gfx906] [--json]\n                 [--block N] [--timeout SEC] [--compiler PATH]\n                 [-I DIR] [-D NAME[=VALUE]] [--flag FLAG]\n编译每个文件，显示其中核函数的寄存器、溢出、共享内存和占用率。.hip 文件的\n默认目标是 dcu:gfx906，其他文件是 nvidia:sm_90。退出码 0：全部编译成功；\n1：有编译错误；2：无法检查（用法错误、文件不可读、没有编译器）。\n"),
    M(CLI_CHECK_OOM, "hkls check: out of memory\n", "hkls check：内存不足\n"),
    F(CLI_CHECK_NEEDS_VALUE, "hkls check: %s needs a value\n", "hkls check：%s 需要一个值\n"),
    F(CLI_CHECK_BAD_VALUE, "hkls check: bad %s value '%s'\n", "hkls check：%s 的值 '%s' 有误\n"),
    F(CLI_CHECK_UNKNOWN_OPTION, "hkls check: unknown option '%s'\n", "hkls check：未知选项 '%s'\n"),
    M(CLI_CHECK_NO_FILES, "hkls check: no files given\n", "hkls check：没有给出文件\n"),
    F(CLI_CHECK_BAD_TARGET, "hkls check: bad target '%s' (nvidia:sm_XX or dcu:gfxXXX; sm_XX one of %s)\n",
      "hkls check：目标 '%s' 有误（nvidia:sm_XX 或 dcu:gfxXXX；sm_XX 取 %s 之一）\n"),
    F(CLI_CHECK_NO_OCC_TABLE, "hkls check: note: no occupancy table for %s; resources only\n",
      "hkls check：注意：没有 %s 的占用率表；只显示资源占用\n"),
    M(CLI_CHECK_CANNOT_START, "hkls check: cannot start\n", "hkls check：无法启动\n"),
    F(CLI_DOCTOR_UNKNOWN_ARG, "hkls doctor: unknown argument '%s'\n", "hkls doctor：未知参数 '%s'\n"),
    M(CLI_DOCTOR_USAGE, "usage: hkls doctor [--json]\nReports the compilers, GPUs, profilers, disassemblers, runners and isolation tools found here, and what each missing one costs.\n",
      "用法：hkls doctor [--json]\n报告本机找到的编译器、GPU、性能分析工具、反汇编工具、运行器和隔离工具，以及缺少每一项会损失什么。\n"),
    F(CLI_OPT_RECORDED, "  what a GPU gives: this kernel's recorded %s episode%s%s: %s/%s\n",
      "  在 GPU 上的效果：这个核函数已记录的 %s 优化任务%s%s：%s/%s\n"),
    F(CLI_OPT_RECORDED_HOW, "    (how it was recorded: %s/%s)\n", "    （记录方式：%s/%s）\n"),
    F(CLI_OPT_SIM_BUILD, "hkls optimize: cannot build the GPU simulator: %s %s\n",
      "hkls optimize：无法构建 GPU 模拟器：%s %s\n"),
    F(CLI_OPT_NO_SIM, "hkls %s: --simulate-gpu: no GPU simulator (set HK_GPU_SIMULATOR, or run from a source tree with cc)\n",
      "hkls %s：--simulate-gpu：没有 GPU 模拟器（请设置 HK_GPU_SIMULATOR，或在有 cc 的源码树中运行）\n"),
    F(CLI_OPT_NO_FILE, "hkls %s: %s does not exist\n", "hkls %s：%s 不存在\n"),
    F(CLI_OPT_IS_DIR, "hkls %s: %s is a directory, not a source file\n", "hkls %s：%s 是目录，不是源文件\n"),
    F(CLI_OPT_CANNOT_READ, "hkls %s: cannot read %s: %s\n", "hkls %s：无法读取 %s：%s\n"),
    F(CLI_OPT_NOT_TEXT, "hkls %s: %s is not a text file (%s at byte %zu)\n",
      "hkls %s：%s 不是文本文件（%s，位于第 %zu 字节）\n"),
    F(CLI_OPT_UNKNOWN_OPTION, "hkls optimize: unknown option or missing value: %s\n",
      "hkls optimize：未知选项或缺少值：%s\n"),
    M(CLI_OPT_NEED_FILE, "hkls optimize: need FILE and --kernel\n",
      "hkls optimize：需要 FILE 和 --kernel\n"),
    M(CLI_OPT_NO_DB_PATH, "hkls optimize: no database path: set --db, HK_DB or HOME\n",
      "hkls optimize：没有数据库路径：请设置 --db、HK_DB 或 HOME\n"),
    F(CLI_OPT_BAD_VALUE, "hkls optimize: bad option value '%s'\n", "hkls optimize：选项值 '%s' 有误\n"),
    F(CLI_VC_PAIRS, "hkls verify-candidate: --pairs takes 1..%d\n",
      "hkls verify-candidate：--pairs 取 1..%d\n"),
    F(CLI_VC_UNKNOWN_OPTION, "hkls verify-candidate: unknown option or missing value: %s\n",
      "hkls verify-candidate：未知选项或缺少值：%s\n"),
    F(CLI_VC_STOPPED, "hkls verify-candidate: stopped %s\n", "hkls verify-candidate：已停止 %s\n"),
    M(CLI_SPEC_USAGE, "usage: hkls spec FILE --kernel NAME [-o OUT] [--force]\nWrites a harness-form bench spec for kernel NAME of FILE, inferred from its\nsignature and launch site, to OUT (default: stdout). Edit the buffer counts,\nkinds and sizes it guessed; docs/bench-spec.md describes every field.\n",
      "用法：hkls spec FILE --kernel NAME [-o OUT] [--force]\n根据 FILE 中核函数 NAME 的签名和启动处推断出 harness 形式的 bench spec，\n写到 OUT（默认：stdout）。请检查并修改它猜测的缓冲区元素个数、参数种类和\n规模；docs/bench-spec.md 说明了每个字段。\n"),
    F(CLI_SPEC_NEEDS_VALUE, "hkls spec: %s needs a value\n", "hkls spec：%s 需要一个值\n"),
    F(CLI_SPEC_UNKNOWN_OPTION, "hkls spec: unknown option %s\n", "hkls spec：未知选项 %s\n"),
    F(CLI_SPEC_ONE_FILE, "hkls spec: one FILE only (got %s and %s)\n",
      "hkls spec：只能给一个 FILE（收到了 %s 和 %s）\n"),
    F(CLI_SPEC_EXISTS, "hkls spec: %s exists; use --force to replace it\n",
      "hkls spec：%s 已存在；要替换请用 --force\n"),
    F(CLI_SPEC_WRITE, "hkls spec: cannot write %s: %s\n", "hkls spec：无法写入 %s：%s\n"),
    M(CLI_SPEC_OOM, "hkls spec: out of memory\n", "hkls spec：内存不足\n"),
    M(CLI_TRUST_USAGE, "usage: hkls trust [FOLDER]            trust FOLDER (default: the current directory)\n       hkls trust --remove [FOLDER]   stop trusting it\n       hkls trust --list              the trusted folders, one a line\n\nA trusted folder's .hyperkernel.json may choose the compilers (compile.nvcc,\ncompile.hipcc), compiler flags, engines and the simulated GPU; in other folders\nthose keys are ignored. Subfolders of a trusted folder are trusted. The list is\n$XDG_CONFIG_HOME/hyperkernel/trusted.json (else ~/.config/hyperkernel/).\nA running server sees the change when it restarts (or use the editor's\ncommand: :HyperKernelTrust, hyperkernel.trustFolder).\n",
      "用法：hkls trust [FOLDER]            信任 FOLDER（默认：当前目录）\n      hkls trust --remove [FOLDER]   不再信任它\n      hkls trust --list              列出受信任的目录，每行一个\n\n受信任目录的 .hyperkernel.json 可以选择编译器（compile.nvcc、compile.hipcc）、\n编译选项、引擎和模拟 GPU；在其他目录中这些键会被忽略。受信任目录的子目录也受\n信任。列表保存在 $XDG_CONFIG_HOME/hyperkernel/trusted.json（否则在\n~/.config/hyperkernel/）。正在运行的服务器在重启后才会看到变化（或使用编辑器\n的命令：:HyperKernelTrust、hyperkernel.trustFolder）。\n"),
    F(CLI_TRUST_UNEXPECTED, "hkls trust: unexpected argument '%s'\n", "hkls trust：多余的参数 '%s'\n"),
    M(CLI_TRUST_LIST_NO_FOLDER, "hkls trust: --list takes no folder\n",
      "hkls trust：--list 不接受目录参数\n"),
    M(CLI_TRUST_NO_PLACE, "hkls trust: no place for the trust list: set XDG_CONFIG_HOME or HOME\n",
      "hkls trust：没有地方保存信任列表：请设置 XDG_CONFIG_HOME 或 HOME\n"),
    M(CLI_TRUST_NO_CWD, "hkls trust: cannot tell the current directory\n", "hkls trust：无法确定当前目录\n"),
    F(CLI_TRUST_FAILED, "hkls trust: %s%s: %s (list %s)\n", "hkls trust：%s%s：%s（列表 %s）\n"),
    F(CLI_RW_PARAM, "hkls rewrites: --param %s: not NAME=INTEGER with a parameter of %s\n",
      "hkls rewrites：--param %s：不是 %s 的参数形式 NAME=INTEGER\n"),
    F(CLI_RW_EMIT, "hkls rewrites: --emit %s: not REWRITE or REWRITE+REWRITE (at most %d)\n",
      "hkls rewrites：--emit %s：不是 REWRITE 或 REWRITE+REWRITE（至多 %d 个）\n"),
    F(CLI_RW_NO_REWRITE, "hkls rewrites: no rewrite named %s\n", "hkls rewrites：没有名为 %s 的代码改写\n"),
    F(CLI_RW_PARAM_NONE, "hkls rewrites: --param %s: no rewrite of --emit %s has it\n",
      "hkls rewrites：--param %s：--emit %s 中没有代码改写有这个参数\n"),
    F(CLI_RW_REANALYSE, "hkls rewrites: the output of %s cannot be analysed again: %s\n",
      "hkls rewrites：%s 的输出无法再次分析：%s\n"),
    F(CLI_RW_SKILLS, "hkls rewrites: skills not loaded from %s: %s\n",
      "hkls rewrites：未能从 %s 加载优化技能：%s\n"),
    F(CLI_RW_LAUNCH, "hkls rewrites: the spec's launch cannot be searched: %s\n",
      "hkls rewrites：无法搜索 bench spec 的启动配置：%s\n"),
    F(CLI_RW_NO_SEARCH, "hkls rewrites: no search: %s\n", "hkls rewrites：无法搜索：%s\n"),
    F(CLI_RW_MAX_PARAMS, "hkls rewrites: at most %d --param (a rewrite has no more parameters)\n",
      "hkls rewrites：至多 %d 个 --param（代码改写没有更多参数）\n"),
    M(CLI_RW_DEVICE, "hkls rewrites: --device wants SMS,WARPS_PER_SM (e.g. 132,64)\n",
      "hkls rewrites：--device 应为 SMS,WARPS_PER_SM（例如 132,64）\n"),
    M(CLI_RW_PROPOSALS, "hkls rewrites: --proposals wants 1..1000\n",
      "hkls rewrites：--proposals 应为 1..1000\n"),
    M(CLI_RW_CLASS, "hkls rewrites: --class wants memory-bound, compute-bound, latency-bound or unknown\n",
      "hkls rewrites：--class 应为 memory-bound、compute-bound、latency-bound 或 unknown\n"),
    F(CLI_RW_TIME, "hkls rewrites: --time wants PATTERN=MS (MS > 0; at most %zu)\n",
      "hkls rewrites：--time 应为 PATTERN=MS（MS > 0；至多 %zu 个）\n"),
    F(CLI_RW_UNEXPECTED, "hkls rewrites: unexpected argument '%s'\n", "hkls rewrites：多余的参数 '%s'\n"),
    M(CLI_RW_NEED_PROPOSALS, "hkls rewrites: --class and --time need --proposals N\n",
      "hkls rewrites：--class 和 --time 需要 --proposals N\n"),
    M(CLI_RW_PROPOSALS_SPEC, "hkls rewrites: --proposals needs --spec (the launch the search varies), and not --emit\n",
      "hkls rewrites：--proposals 需要 --spec（搜索要改变的启动配置），且不能与 --emit 同用\n"),
    M(CLI_RW_PARAM_EMIT, "hkls rewrites: --param needs --emit REWRITE\n",
      "hkls rewrites：--param 需要 --emit REWRITE\n"),
    F(CLI_RW_GRAMMAR, "hkls rewrites: the CUDA grammar cannot be used: %s\n",
      "hkls rewrites：无法使用 CUDA 语法：%s\n"),
    F(CLI_RW_PARSE, "hkls rewrites: %s: cannot be parsed: %s\n", "hkls rewrites：%s：无法解析：%s\n"),
    F(CLI_RW_NO_KERNEL, "hkls rewrites: %s: no kernel named %s\n",
      "hkls rewrites：%s：没有名为 %s 的核函数\n"),
    M(CLI_RW_OOM, "hkls rewrites: out of memory\n", "hkls rewrites：内存不足\n"),
    M(CLI_TRUST_NO_FOLDER, "no such folder", "目录不存在"),
    F(CLI_RW_NOT_APPLY, "hkls rewrites: %s does not apply: %s\n", "hkls rewrites：%s 不适用：%s\n"),
    F(CLI_RW_NOT_APPLY_ON, "hkls rewrites: %s does not apply on the output of %s: %s\n",
      "hkls rewrites：%s 不适用于 %s 的输出：%s\n"),
    M(CLI_OPT_USAGE, "usage: hkls optimize FILE --kernel NAME [--spec SPEC.json] [options]\n  --spec SPEC.json         the bench spec (default: next to FILE,\n                           <file>.<kernel>.bench.json, <kernel>.bench.json or\n                           <file>.bench.json; when there is none, one is inferred\n                           and saved as <file>.<kernel>.bench.json)\n  --target T               nvidia[:sm_XX] or dcu[:gfxNNN] (default: nvidia, the GPU's arch)\n  --engine builtin         optimization engine (default builtin)\n  --budget N               candidates to evaluate (default 12)\n  --minutes M              time budget of the search (default 10)\n  --seed S                 search seed (default 1)\n  --name NAME              episode name (default \"<kernel> <arch>\")\n  --from-original          search from the original, not the best earlier version\n  --db PATH                history database (default $HK_DB, else\n                           $XDG_DATA_HOME/hyperkernel/history.db)\n  --out DIR                reports directory (default <db dir>/reports/<episode>)\n  --jobs N                 parallel compiles (default: all cores)\n  --check quick|full       combinations each candidate is checked on during the\n                           search: every (seed, distribution) at the smallest\n                           size plus one seed per distribution at the others\n                           (quick, the default) or every (size, seed,\n                           distribution) (full); either way the best is\n                           re-checked on the full set with new seeds\n  --work-dir DIR           scratch directory (kept); --keep-work keeps the default one\n  --json                   print a JSON summary at the end\n  --events                 one JSON event per line on stdout (for editors)\n  --quiet                  only warnings and the result\n  --allow-no-floor         credit speedups that no physical floor checked (the\n                           device's peaks unknown, or a spec without bytes/flops\n                           formulas; command-form specs); by default they are\n                           measured but not credited, reported or applied\n  --simulate-gpu           CI only: a deterministic simulated GPU (the tests'\n                           simulator, $HK_GPU_SIMULATOR or built from the source\n                           tree; it answers for tests/data/episode/tiny.bench.json)\n  --untrusted              the spec's folder is not trusted (the editor passes it):\n                           refuse a command-form spec or one with compile_flags\n  --lang en|zh-CN          language of the report and the summary (default: from\n                           LC_ALL, LC_MESSAGES or LANG; JSON is never translated)\nExit: 0 completed, 1 failed, 2 bad input, 3 no GPU, 130 stopped.\n",
      "用法：hkls optimize FILE --kernel NAME [--spec SPEC.json] [选项]\n  --spec SPEC.json         bench spec（默认在 FILE 旁边找 <file>.<kernel>.bench.json、\n                           <kernel>.bench.json 或 <file>.bench.json；都没有时自动\n                           推断一个并保存为 <file>.<kernel>.bench.json）\n  --target T               nvidia[:sm_XX] 或 dcu[:gfxNNN]（默认：nvidia，取 GPU 的架构）\n  --engine builtin         优化引擎（默认 builtin）\n  --budget N               要评估的候选版本数（默认 12）\n  --minutes M              搜索的时间预算，单位分钟（默认 10）\n  --seed S                 搜索的随机种子（默认 1）\n  --name NAME              优化任务名称（默认 \"<kernel> <arch>\"）\n  --from-original          从原始版本开始搜索，而不是之前的最佳版本\n  --db PATH                历史数据库（默认 $HK_DB，否则\n                           $XDG_DATA_HOME/hyperkernel/history.db）\n  --out DIR                报告目录（默认 <数据库目录>/reports/<优化任务>）\n  --jobs N                 并行编译数（默认：所有核心）\n  --check quick|full       搜索期间每个候选版本检查的组合：最小规模下的每个\n                           （种子，分布）加上其他规模下每个分布一个种子（quick，\n                           默认），或每个（规模，种子，分布）（full）；两种方式下\n                           最佳版本都会用新种子在全集上复查\n  --work-dir DIR           临时目录（保留）；--keep-work 保留默认的临时目录\n  --json                   结束时输出 JSON 摘要\n  --events                 在 stdout 上每行输出一个 JSON 事件（供编辑器使用）\n  --quiet                  只输出警告和结果\n  --allow-no-floor         计入没有经过物理下限检查的加速比（设备峰值未知，或\n                           bench spec 没有 bytes/flops 公式；command 形式的\n                           bench spec）；默认只测量，不计入、不报告、不应用\n  --simulate-gpu           仅用于 CI：确定性的模拟 GPU（测试用模拟器，\n                           $HK_GPU_SIMULATOR 或从源码树构建；只响应\n                           tests/data/episode/tiny.bench.json）\n  --untrusted              bench spec 所在目录不受信任（编辑器会传入）：拒绝\n                           command 形式或带 compile_flags 的 bench spec\n  --lang en|zh-CN          报告和摘要的语言（默认取自 LC_ALL、LC_MESSAGES 或\n                           LANG；JSON 从不翻译）\n退出码：0 完成，1 失败，2 输入有误，3 没有 GPU，130 已停止。\n"),
    M(CLI_VC_USAGE, "usage: hkls verify-candidate --spec SPEC.json --candidate FILE.cu [--target nvidia[:sm_XX]|dcu[:gfxNNN]] [--check full|quick] [--pairs N] [--allow-no-floor] [--sanitize] [--json] [--keep-work]\nJudges FILE.cu against the spec's source with the episode's checks, then times\nboth interleaved (--pairs, default 5) for the speedup and its p10..p90 spread.\nAn accepted candidate claiming over 2x (any, with --sanitize) also runs under\ncompute-sanitizer (memcheck, racecheck, initcheck; $HK_SANITIZE_TIMEOUT_S per\ntool, default 300).\nExit: 0 accepted and faster (interleaved p10 > 1), 5 accepted but not faster\nor its speedup not credited (no physical floor), 1 rejected, 2 bad input,\n3 not measured (no GPU), 4 the baseline failed, 130 stopped.\n",
      "用法：hkls verify-candidate --spec SPEC.json --candidate FILE.cu [--target nvidia[:sm_XX]|dcu[:gfxNNN]] [--check full|quick] [--pairs N] [--allow-no-floor] [--sanitize] [--json] [--keep-work]\n用优化任务的检查把 FILE.cu 与 bench spec 的源文件对比评判，然后交替计时两者\n（--pairs，默认 5 对），得到加速比及其 p10..p90 波动区间。\n被接受且加速比超过 2x 的候选版本（用 --sanitize 时为所有候选版本）还会在\ncompute-sanitizer 下运行（memcheck、racecheck、initcheck；每个工具\n$HK_SANITIZE_TIMEOUT_S 秒，默认 300）。\n退出码：0 已接受且更快（交替计时的 p10 > 1），5 已接受但不更快或其加速比\n未计入（没有物理下限），1 已拒绝，2 输入有误，3 未测量（没有 GPU），\n4 基线失败，130 已停止。\n"),
    F(CLI_OPT_NOT_CREDITED_ONE, "  not credited: %lld version measured faster (best v%lld, %.2fx), but no physical floor checked it (%s); --allow-no-floor credits them\n",
      "  未计入：%lld 个版本测得更快（最佳 v%lld，%.2fx），但没有物理下限检查过它（%s）；--allow-no-floor 会计入\n"),
    F(CLI_OPT_NOT_CREDITED, "  not credited: %lld versions measured faster (best v%lld, %.2fx), but no physical floor checked them (%s); --allow-no-floor credits them\n",
      "  未计入：%lld 个版本测得更快（最佳 v%lld，%.2fx），但没有物理下限检查过它们（%s）；--allow-no-floor 会计入\n"),
    F(LSP_APPLY_KERNEL_CHANGED, "kernel changed since episode %lld started",
      "优化任务 %lld 开始后核函数已被修改"),
    F(LSP_APPLY_FILE_CHANGED, "kernel changed since episode %lld started (v%d also changes code outside the kernel, so the whole file must match)",
      "优化任务 %lld 开始后核函数已被修改（v%d 还修改了核函数之外的代码，所以整个文件必须一致）"),
    F(LSP_APPLY_LAUNCH_INSIDE, "v%d: the launch edit at line %d falls inside the version's own change: apply it by hand",
      "v%d：第 %d 行的启动配置修改落在该版本自身的改动之内：请手工应用"),
    F(LSP_APPLY_LAUNCH_CANNOT, "v%d's launch cannot be written: %s", "无法写入 v%d 的启动配置：%s"),
    F(LSP_APPLY_ALREADY, "v%d is already in the file", "v%d 已在文件中"),
    F(LSP_APPLY_LAUNCH_IN_KERNEL, "v%d: a launch of %s at line %d lies inside the changed kernel text: apply it by hand",
      "v%d：%s 的启动（第 %d 行）位于被修改的核函数文本之内：请手工应用"),
    F(LSP_APPLY_LAUNCH_TOUCHES, "v%d: the launch edit at line %d touches the kernel edit: apply it by hand",
      "v%d：第 %d 行的启动配置修改紧挨着核函数的修改：请手工应用"),
    F(LSP_APPLY_APPLIED, "v%d applied: the document now holds its text%s%.400s",
      "已应用 v%d：文档现在包含它的文本%s%.400s"),
    F(LSP_APPLY_CLIENT_REFUSED, "v%d was not applied: the client refused the edit%s%.400s",
      "未应用 v%d：客户端拒绝了这次编辑%s%.400s"),
    F(LSP_APPLY_NOT_HELD, "v%d was not applied: the document does not hold its text (the client reported success, or the text changed meanwhile)",
      "未应用 v%d：文档中没有它的文本（客户端报告了成功，或文本在此期间被修改）"),
    F(LSP_APPLY_NOT_IN_CHAIN, "v%d is not a verified version of %s's best chain",
      "v%d 不是 %s 最佳版本链上经过验证的版本"),
    M(LSP_ERR_DOC_CHANGED_EDITS, "the document changed while the edits were computed: ask again",
      "计算编辑期间文档已被修改：请重新请求"),
    M(LSP_ERR_QUEUE_EDITS, "cannot queue the edit planning", "无法把编辑规划加入队列"),
    M(LSP_ERR_RANGE_START, "range.start must be a position inside the document",
      "range.start 必须是文档内的位置"),
    M(LSP_ERR_ARGS_APPLY, "arguments: [{uri, kernel, episode, version}]",
      "参数应为：[{uri, kernel, episode, version}]"),
    M(LSP_ERR_DOC_NOT_OPEN, "the document is not open", "文档未打开"),
    M(LSP_ERR_ARGS_OPTIMIZE, "arguments: [{uri, kernel, target, engine?, spec?}] (uri and kernel are required)",
      "参数应为：[{uri, kernel, target, engine?, spec?}]（uri 和 kernel 必填）"),
    M(LSP_ERR_TARGET, "target must be nvidia, nvidia:sm_XX or dcu[:gfxNNN]",
      "target 必须是 nvidia、nvidia:sm_XX 或 dcu[:gfxNNN]"),
    M(LSP_ERR_NEEDS_EPISODE, "needs {episode: ID}", "需要 {episode: ID}"),
    F(LSP_ERR_NO_SKELETON, "no benchmark spec_path skeleton for %s: %s",
      "无法为 %s 生成 bench spec 骨架：%s"),
    M(LSP_ERR_QUEUE_SKELETON, "cannot queue the spec's skeleton", "无法把 bench spec 骨架的生成加入队列"),
    M(LSP_ERR_DOC_CHANGED_SPEC, "the document changed while the spec was made: ask again",
      "生成 bench spec 期间文档已被修改：请重新请求"),
    M(LSP_ERR_ARGS_SPEC, "arguments: [{uri, kernel}] with a file:// uri",
      "参数应为：[{uri, kernel}]，uri 为 file:// URI"),
    M(LSP_ERR_DB_NOW, "cannot read the history database now", "现在无法读取历史数据库"),
    F(LSP_ERR_NO_EPISODE, "no episode %lld", "没有优化任务 %lld"),
    F(LSP_ERR_NO_REPORT, "episode %lld has no report (yet): %s", "优化任务 %lld（还）没有报告：%s"),
    M(LSP_ERR_PARAMS_OBJECT, "params must be an object", "params 必须是对象"),
    M(LSP_ERR_FILE_URI, "uri must be a file:// uri", "uri 必须是 file:// URI"),
    M(LSP_ERR_NEEDS_URI_KERNEL, "needs {uri: file://..., kernel: NAME}",
      "需要 {uri: file://..., kernel: NAME}"),
    M(LSP_ERR_COMMAND_STRING, "command must be a string", "command 必须是字符串"),
    M(LSP_ERR_UNKNOWN_COMMAND, "unknown command", "未知命令"),
    F(LSP_ERR_DB_OPEN, "cannot open the history database %s: %s", "无法打开历史数据库 %s：%s"),
    F(LSP_ERR_NOT_STARTED, "optimization of %s did not start: %s", "%s 的优化没有启动：%s"),
    M(LSP_ERR_STOPPING, "the server is stopping", "服务器正在停止"),
    M(LSP_ERR_TOO_MANY, "too many optimizations running at once; cancel one first",
      "同时运行的优化任务太多；请先取消一个"),
    F(LSP_ERR_NO_SPEC, "no benchmark spec for %s: %s does not exist", "%s 没有 bench spec：%s 不存在"),
    M(LSP_ERR_NO_EXE, "cannot find the hkls executable to run the worker",
      "找不到运行优化进程所需的 hkls 可执行文件"),
    F(LSP_ERR_WORKER_START, "cannot start the optimization worker %.200s: %s",
      "无法启动优化进程 %.200s：%s"),
    M(LSP_ERR_URI_STRING, "textDocument.uri must be a string", "textDocument.uri 必须是字符串"),
    M(LSP_ERR_NOT_OPEN, "document not open", "文档未打开"),
    M(LSP_ERR_NO_ANALYSIS, "the analysis of this version is not available yet", "这个版本的分析结果还没有就绪"),
    M(LSP_ERR_POSITION, "position must be {line, character} with non-negative integers",
      "position 必须是 {line, character}，且为非负整数"),
    M(LSP_ERR_POSITION_OUTSIDE, "position is outside the document or inside a character",
      "position 在文档之外或落在一个字符中间"),
    M(LSP_ERR_OOM, "out of memory", "内存不足"),
    M(LSP_ERR_INIT_TWICE, "initialize was already received", "已经收到过 initialize"),
    M(LSP_ERR_INIT_PARAMS, "initialize needs an object of params", "initialize 需要对象形式的 params"),
    M(LSP_ERR_CAPABILITIES, "\"capabilities\" must be an object", "\"capabilities\" 必须是对象"),
    M(LSP_ERR_CLOSED, "the document was closed before its analysis", "文档在分析完成前已被关闭"),
    M(LSP_ERR_DIDOPEN, "didOpen needs textDocument.uri, .version (integer) and .text",
      "didOpen 需要 textDocument.uri、.version（整数）和 .text"),
    M(LSP_ERR_DIDCHANGE, "didChange needs textDocument.uri and .version",
      "didChange 需要 textDocument.uri 和 .version"),
    M(LSP_ERR_DIDCLOSE, "didClose needs textDocument.uri", "didClose 需要 textDocument.uri"),
    M(LSP_ERR_DIDSAVE, "didSave needs textDocument.uri", "didSave 需要 textDocument.uri"),
    M(LSP_ERR_ARGS_TRUST, "arguments must be [] or [{\"folder\": PATH or file:// URI}]",
      "参数必须是 [] 或 [{\"folder\": PATH 或 file:// URI}]"),
    M(LSP_ERR_NO_WORKSPACE, "no workspace folder: name the folder to trust", "没有工作区目录：请指定要信任的目录"),
    M(LSP_ERR_QUEUE_TRUST, "cannot queue the write of the trust list", "无法把信任列表的写入加入队列"),
    M(LSP_ERR_FOLDER_ABSOLUTE, "the folder must be an absolute path or a file:// URI",
      "目录必须是绝对路径或 file:// URI"),
    M(DOC_CHANGE_NOT_OBJECT, "a content change must be an object", "内容变更必须是对象"),
    M(DOC_CHANGE_NO_TEXT, "a content change needs a \"text\" string", "内容变更需要 \"text\" 字符串"),
    M(DOC_CHANGE_BAD_RANGE, "a content change has a malformed \"range\"", "内容变更的 \"range\" 格式有误"),
    M(DOC_CHANGE_INVERTED, "a content change has an inverted range (end before start)",
      "内容变更的范围颠倒（结束位置在开始位置之前）"),
    M(DOC_CHANGE_OUTSIDE, "a content change has a position outside the document or inside a character",
      "内容变更的位置在文档之外或落在一个字符中间"),
    M(DOC_CHANGE_TOO_BIG, "the change makes the document larger than the size cap",
      "这次变更会使文档超过大小上限"),
    M(LSP_ERR_READ_FILE, "cannot read the file", "无法读取该文件"),
    M(LSP_ERR_WRITE_SPEC, "cannot write the spec", "无法写入 bench spec"),
    M(LSP_ERR_NO_DB, "no history database: set episodes.db (or HOME)",
      "没有历史数据库：请设置 episodes.db（或 HOME）"),
    F(LSP_OPEN_PATH, "Open %s", "打开 %s"),
    M(LSP_WHY_KERNEL_UNKNOWN, "the episode's kernel is unknown", "优化任务的核函数未知"),
    M(LSP_WHY_LAUNCH_UNREADABLE, "its launch configuration cannot be read", "无法读取它的启动配置"),
    M(LSP_WHY_NOT_ANALYSED, "the document cannot be analysed", "无法分析该文档"),
    M(LSP_WHY_VERSION_GONE, "the version is gone from the chain", "该版本已不在版本链中"),
    M(LSP_APPLY_NO_EDIT, "cannot build the edit", "无法生成编辑"),
    M(LSP_APPLY_CLIENT_CANNOT, "the client cannot apply edits (workspace.applyEdit); use the code action instead",
      "客户端无法应用编辑（workspace.applyEdit）；请改用代码操作"),
    M(LSP_APPLY_NO_CHANGE, "this version changes no text", "这个版本没有改动任何文本"),
    M(LSP_CANCEL_NOT_RUNNING, "that episode is not running in this server", "该优化任务不在此服务器中运行"),
    M(LSP_COMPILE_TIMED_OUT, "the compile timed out; raise compile.timeoutMs to see results",
      "编译超时；请调大 compile.timeoutMs 以查看结果"),
    M(LSP_INFERENCE_FAILED, "inference failed", "推断失败"),
    M(LSP_ERR_SHUTTING_DOWN, "the server is shutting down", "服务器正在关闭"),
    M(LSP_ERR_EXITED, "the server has exited", "服务器已退出"),
    F(LSP_LOG_VERSION_NOTE, "v%d: %s", "v%d：%s"),
    F(LSP_LOG_COMPILE_FAILED, "%s: compile failed to run: %s", "%s：编译未能运行：%s"),
    F(LSP_LOG_COMPILER_START, "%s: cannot start the compiler: %s", "%s：无法启动编译器：%s"),
    F(LSP_LOG_EPISODE, "episode %lld (%s): %s", "优化任务 %lld（%s）：%s"),
    F(LSP_LOG_SPEC_INFERRED, "Optimize %s: no spec, inferred %s: %s",
      "优化核函数 %s：没有 bench spec，已推断 %s：%s"),
    F(LSP_LOG_OPTIMIZE_DONE, "Optimize %s (%s): %s", "优化核函数 %s (%s)：%s"),
    M(LSP_LOG_IS_TRUSTED, "client settings: isTrusted must be true or false; ignored",
      "客户端设置：isTrusted 必须是 true 或 false；已忽略"),
    F(LSP_LOG_CANNOT_OPEN, "%s: cannot open: %s", "%s：无法打开：%s"),
    F(LSP_LOG_CHANGE_REJECTED, "%s: change to version %lld rejected (%s); the server keeps version %lld, so close and reopen the file if the editor applied it",
      "%s：已拒绝对版本 %lld 的修改（%s）；服务器保留版本 %lld，如果编辑器已应用这次修改，请关闭并重新打开该文件"),
    M(LSP_END_STOPPED, "stopped by the user", "已被用户停止"),
    F(LSP_END_SIGNAL, "the worker was killed by signal %d%s%.400s", "优化进程被信号 %d 终止%s%.400s"),
    F(LSP_END_STATUS, "the worker exited with status %lld%s%.400s", "优化进程以状态 %lld 退出%s%.400s"),
    M(LSP_APPLY_NOTE_SEP, "; note: ", "；注意："),
    M(LSP_CLIENT_SETTINGS, "client settings", "客户端设置"),
    M(LSP_ERR_SKELETON_NO_KERNEL, "no __global__ kernel of that name", "没有这个名字的 __global__ 核函数"),
    M(LSP_ERR_SKELETON_NOTHING, "its parameters give a harness nothing to compare",
      "它的参数没有可供 harness 比较的输出"),
    M(LSP_ERR_CANNOT_ANALYSE, "cannot analyse the file", "无法分析该文件"),
    M(LSP_ERR_NOT_OVERWRITTEN, " (not overwritten)", "（未覆盖）"),
    M(LSP_ERR_NO_WORKER_EPISODE, "the worker ended without an episode", "优化进程结束时没有产生优化任务"),
    M(LSP_ERR_NO_SPEC_SHORT, "no benchmark spec", "没有 bench spec"),
    M(LSP_OPEN_TOO_BIG, "over the document size cap or too many open files", "超过文档大小上限，或打开的文件太多"),
    M(LSP_HOVER_SIMULATED, " simulated", "（模拟）"),
    M(LSP_APPLY_VERSIONS_UNREADABLE, "the episode's versions could not be read", "无法读取优化任务的版本"),
    F(EP_ACCURACY_REFEREE_ADDED_DISTRIBUTION, "accuracy: the referee-added distribution %s is not judged (%s): the spec's tolerance cannot judge it, and no fp64 reference exists",
      "精度：裁判追加的分布 %s 不参与评判（%s）：bench spec 的容差无法评判它，且没有 fp64 参考"),
    F(EP_ACCURACY_FP64_REFERENCE_SPEC, "accuracy: no fp64 reference (%s): the spec's tolerance decides alone",
      "精度：没有 fp64 参考（%s）：仅由 bench spec 的容差判定"),
    F(EP_ACCURACY_FP64_SHADOW_DOES, "accuracy: the fp64 shadow does not build, the spec's tolerance decides alone:\n%s",
      "精度：fp64 影子版本无法构建，仅由 bench spec 的容差判定：\n%s"),
    F(EP_ACCURACY_OUTPUTS_ARE_ALSO, "accuracy: outputs are also judged against the baseline's fp64 shadow (%zu functions promoted): a candidate's error may be at most %.0fx the baseline's own plus a floor",
      "精度：输出还会与基线的 fp64 影子版本对比（%zu 个函数提升为 fp64）：候选版本的误差最多为基线自身误差的 %.0fx 再加一个下限"),
    F(EP_ACCURACY_BASELINE_UP_FROM, "accuracy: the baseline's '%s' is up to %.3g from its fp64 shadow: comparisons with the baseline widen its absolute tolerance (%g) by up to %.3g, twice that (the fp64 rule still judges the candidate's own error)",
      "精度：基线的 '%s' 与其 fp64 影子版本相差最多 %.3g：与基线对比时，其绝对容差（%g）最多放宽 %.3g 的两倍（候选版本自身的误差仍由 fp64 规则评判）"),
    F(EP_ACCURACY_SPEC_TOLERANCE_DECIDES, "accuracy: %s; the spec's tolerance decides alone",
      "精度：%s；仅由 bench spec 的容差判定"),
    F(EP_SIMULATED_GPU_NOTHING_HERE, "SIMULATED GPU %s: nothing here is measured on hardware",
      "模拟 GPU %s：这里没有任何结果是在硬件上实测的"),
    F(EP_DEVICE_PEAKS_FROM_CACHE, "device peaks from the cache %s (measured %lld)",
      "设备峰值取自缓存 %s（测量于 %lld）"),
    F(EP_DEVICE_PROBE_FAILED_PHYSICAL, "device probe failed (%s): %s; no physical floor or roofline",
      "设备探测失败（%s）：%s；没有物理下限和屋顶线模型"),
    F(EP_COULD_NOT_CACHE_DEVICE, "could not cache the device peaks in %s", "无法把设备峰值缓存到 %s"),
    F(EP_SMS_GB_COPY_TFLOP, "%s (%s, %d SMs): %.0f GB/s copy, %.1f TFLOP/s FP32, tensor %s",
      "%s（%s，%d 个 SM）：拷贝带宽 %.0f GB/s，FP32 %.1f TFLOP/s，张量核 %s"),
    F(EP_SPEC_SOURCE_OPTIMIZING_GIVEN, "the spec's source is %s; optimizing %s as given",
      "bench spec 的源文件是 %s；按原样优化 %s"),
    F(EP_DCU_GPU_CUS_FOUND, "DCU GPU: %s %s, %d CUs (found by %s)",
      "DCU GPU：%s %s，%d 个 CU（由 %s 发现）"),
    F(EP_PEAKS_UNKNOWN_DEVICE_PROBE, "peaks of %s unknown: the device probe is CUDA-only; no physical floor check and no roofline on DCU",
      "%s 的峰值未知：设备探测只支持 CUDA；DCU 上没有物理下限检查，也没有屋顶线模型"),
    F(EP_COMPILING_ASKED_GPU, "compiling for %s as asked; the GPU is %s", "按要求为 %s 编译；GPU 是 %s"),
    F(EP_GPU_FOUND_BY, "GPU: %s (found by %s)", "GPU：%s（由 %s 发现）"),
    F(EP_ISOLATION, "isolation: %s", "隔离：%s"),
    F(EP_SPEC_SIZES_SEEDS_DISTRIBUTIONS, "spec %s: %zu sizes, %zu seeds, %zu distributions",
      "bench spec %s：%zu 组规模，%zu 个随机种子，%zu 个分布"),
    F(EP_SPEC_INFERRED, "spec inferred: %s", "已推断 bench spec：%s"),
    F(EP_PHYSICAL_FLOOR_SPEEDUPS_ARE, "no physical floor (%s): speedups are credited without one, as allowed (--allow-no-floor)",
      "没有物理下限（%s）：按允许的方式（--allow-no-floor）在没有下限的情况下计入加速比"),
    F(EP_PHYSICAL_FLOOR_CANDIDATES_ARE, "no physical floor (%s): candidates are judged and timed, but no speedup is credited, reported as verified or applied; --allow-no-floor (episodes.allowNoFloor) credits them",
      "没有物理下限（%s）：候选版本会被评判和计时，但加速比不计入、不报告为已验证、也不应用；--allow-no-floor（episodes.allowNoFloor）会计入"),
    F(EP_STORE_EVIDENCE, "store: evidence %s: %s", "存储：证据 %s：%s"),
    F(EP_STORE_MEASUREMENT, "store: measurement: %s", "存储：测量：%s"),
    F(EP_STORE_VERSION, "store: version: %s", "存储：版本：%s"),
    F(EP_BASELINE_REGISTERS_BYTES_SPILLED, "baseline: %lld registers, %lld bytes spilled, %lld bytes shared",
      "基线：%lld 个寄存器，溢出 %lld 字节，共享内存 %lld 字节"),
    F(EP_INPUTS_SPEC_SEEDS_DRAWN, "inputs: the spec's seeds + %lld, drawn for this episode (HK_SEED=%lld replays them); timed launches draw their own per launch",
      "输入：bench spec 的随机种子 + %lld，为本次优化任务抽取（HK_SEED=%lld 可重放）；计时的启动每次各自抽取"),
    F(EP_BASELINE_MS_BELOW_PHYSICAL, "the baseline (%.4g ms) is below the physical floor (%.4g ms) at size %zu: the spec's bytes/flops formulas or the peaks are wrong (bytes counts what crosses to DRAM: data read again from the L2 does not count); every candidate faster than the baseline will be rejected as below the floor",
      "基线（%.4g ms）低于物理下限（%.4g ms，规模 %zu）：bench spec 的 bytes/flops 公式或峰值有误（bytes 只计经过 DRAM 的数据：从 L2 再次读取的数据不算）；比基线快的候选版本都会因低于下限而被拒绝"),
    F(EP_MEMORY_SAFETY_COMPUTE_SANITIZER, "memory safety: compute-sanitizer on the original kernel, to tell %s's %s finding from the original's",
      "内存安全：在原始核函数上运行 compute-sanitizer，以区分 %s 的 %s 发现是否来自原始版本"),
    F(EP_MEMORY_SAFETY_COMPUTE_SANITIZER_2, "memory safety: compute-sanitizer on v%d, the best",
      "内存安全：在最佳版本 v%d 上运行 compute-sanitizer"),
    F(EP_MEMORY_SAFETY_COMPUTE_SANITIZER_3, "memory safety: compute-sanitizer on v%d, which claims %.2fx (over %.0fx)",
      "内存安全：在 v%d 上运行 compute-sanitizer，它声称 %.2fx（超过 %.0fx）"),
    F(EP_V_NOT_FASTER_WHEN, "v%d is not faster when interleaved with the baseline (%.3fx): no best",
      "v%d 与基线交替计时时并不更快（%.3fx）：没有最佳版本"),
    F(EP_CANDIDATES_SOURCES_NOT_KEPT, "candidates' sources not kept: cannot create %s",
      "未保留候选版本的源码：无法创建 %s"),
    F(EP_CANDIDATE_V_SOURCE_NOT, "candidate v%d's source not kept: %s", "未保留候选版本 v%d 的源码：%s"),
    F(EP_NOTHING_MEASURED_CANDIDATES_SOURCES, "nothing measured: the %zu candidates' sources are kept in %s",
      "没有任何测量：%zu 个候选版本的源码保存在 %s"),
    F(EP_DCU_ARCH_KNOWN_HERE, "no DCU arch known here: building for %s (give dcu:gfxNNN)",
      "这里不知道 DCU 架构：按 %s 构建（请给出 dcu:gfxNNN）"),
    M(EP_STOPPED_VERSIONS_FOUND_SO, "stopped: the versions found so far are kept",
      "已停止：保留到目前为止找到的版本"),
    F(EP_WAITING_GPU_ANOTHER_EPISODE, "%.1f s waiting for the GPU (another episode's runs held it) were not counted in the time budget",
      "等待 GPU 的 %.1f 秒（被另一个优化任务的运行占用）未计入时间预算"),
    F(EP_V_DEVICE_CODE_V, "v%d: the device code of v%d, not rebuilt: %lld registers, %lld bytes spilled (%s)",
      "v%d：沿用 v%d 的设备代码，未重新构建：%lld 个寄存器，溢出 %lld 字节（%s）"),
    F(EP_V_DEVICE_CODE_V_2, "v%d: the device code of v%d, not rebuilt (%s)",
      "v%d：沿用 v%d 的设备代码，未重新构建（%s）"),
    F(EP_V_BUILT_REGISTERS_BYTES, "v%d built: %lld registers, %lld bytes spilled (%s)",
      "v%d 已构建：%lld 个寄存器，溢出 %lld 字节（%s）"),
    F(EP_V_BUILT_RESOURCE_FIGURES, "v%d built, no resource figures (%s)", "v%d 已构建，没有资源数据（%s）"),
    F(EP_BUILD_GAVE_PTXAS_RESOURCES, "a build of %s gave no ptxas resources for kernel %s; its stderr ends: %s",
      "%s 的构建没有给出核函数 %s 的 ptxas 资源信息；它的 stderr 结尾为：%s"),
    F(EP_SKILLS_NOT_LOADED_FROM, "skills not loaded from %s (%s): no structural rewrites%s%s",
      "未能从 %s 加载优化技能（%s）：没有结构性代码改写%s%s"),
    M(EP_SKILLS_KEPT_THEIR_LOAD, "skills kept in their load order (out of memory)",
      "优化技能保持加载顺序（内存不足）"),
    F(EP_SKILL_FITS_BUT_REWRITE, "skill %s fits, but its rewrite %s does not apply: %s",
      "优化技能 %s 适用，但它的代码改写 %s 不适用：%s"),
    F(EP_BASELINE_F_ROOFLINE_BOUND, "baseline: %s, %.1f%% of its roofline bound; skills that fit: %s",
      "基线：%s，达到屋顶线模型上限的 %.1f%%；适用的优化技能：%s"),
    F(EP_BASELINE_SKILLS_THAT_FIT, "baseline: %s; skills that fit: %s", "基线：%s；适用的优化技能：%s"),
    F(EP_STORE_SKILL_RECORD, "store: skill record: %s", "存储：优化技能记录：%s"),
    F(EP_V_RUNS_AT_F, "v%d runs at %.0f%% of its roofline bound: the search stops here",
      "v%d 已达到屋顶线模型上限的 %.0f%%：搜索到此为止"),
    F(EP_BEST_EARLIER_VERSION_V, "the best earlier version v%d is no start (%s): starting from the original",
      "之前的最佳版本 v%d 不能作为起点（%s）：从原始版本开始"),
    F(EP_BEST_EARLIER_VERSION_V_2, "the best earlier version v%d runs on the spec's grid %s along one axis, which a search from its text would not keep: starting from the original",
      "之前的最佳版本 v%d 运行时 bench spec 的网格沿一个维度做了变换（%s），从它的文本搜索无法保持这一点：从原始版本开始"),
    F(EP_STARTING_FROM_V_BEST, "starting from v%d, the best verified version so far (the baseline stays the original)",
      "从 v%d（目前经过验证的最佳版本）开始（基线仍是原始版本）"),
    F(EP_BEST_EARLIER_VERSION_V_3, "the best earlier version v%d lacks kernel %s: starting from the original",
      "之前的最佳版本 v%d 中没有核函数 %s：从原始版本开始"),
    F(EP_SEARCH_AXES, "search axes: %s", "搜索维度：%s"),
    F(EP_TIME_BUDGET_MIN_SPENT, "the time budget (%.1f min) is spent", "时间预算（%.1f 分钟）已用完"),
    F(EP_BUILT_CANDIDATES_WERE_NOT, "%zu built candidates were not measured (budget spent)",
      "%zu 个已构建的候选版本未被测量（预算已用完）"),
    F(EP_CANDIDATES_PROPOSED_MEASURED, "%zu candidates proposed, %zu measured",
      "已提出 %zu 个候选版本，测量了 %zu 个"),
    F(EP_BUILD_COMMAND_WORKS_MS, "the build command works (%ld ms); runs need the GPU",
      "构建命令可用（%ld ms）；运行需要 GPU"),
    F(EP_V_X_OVER_LIMIT, "v%d: %.1fx over the limit %.0fx: re-measured in fresh copies: %.2fx",
      "v%d：%.1fx 超过上限 %.0fx：在新的副本中重新测量：%.2fx"),
    M(EP_COMMAND_FORM_CANDIDATES_ARE, "command form: candidates are judged by running the program, which needs the GPU",
      "command 形式：通过运行程序来评判候选版本，这需要 GPU"),
    F(EP_SEARCH_AXES_COMMAND_FORM, "search axes (command form: text rewrites only): %s",
      "搜索维度（command 形式：只做文本改写）：%s"),
    F(EP_SKIPPED_LAUNCH_CONFIGURATION_COMPILER, "skipped %s: launch configuration and compiler flags are the command form's own",
      "跳过 %s：启动配置和编译选项由 command 形式自己决定"),
    M(EP_CANDIDATE_WAS_FASTER_THAN, "no candidate was faster than the baseline", "没有比基线更快的候选版本"),
    F(EP_ISA_EVIDENCE_V_NOT, "no ISA evidence for v%d on %s: %s not found (SASS is NVIDIA-only)",
      "v%d 在 %s 上没有 ISA 证据：找不到 %s（SASS 只适用于 NVIDIA）"),
    F(EP_FAILED_V_EXIT_ISA, "%s failed for v%d (exit %d): no ISA evidence",
      "%s 对 v%d 失败（退出码 %d）：没有 ISA 证据"),
    F(EP_LLVM_OBJDUMP_FUNCTION_V, "llvm-objdump: no function %s in v%d",
      "llvm-objdump：没有函数 %s（v%d 中）"),
    F(EP_V_ISA_INSTRUCTIONS_16, "v%d ISA (%s): %ld instructions, %ld 16-byte global loads, %ld scratch",
      "v%d ISA（%s）：%ld 条指令，%ld 次 16 字节全局加载，%ld 次 scratch 访问"),
    F(EP_CUOBJDUMP_HERE_SASS_SUMMARY, "no cuobjdump here: no SASS summary for v%d",
      "这里没有 cuobjdump：v%d 没有 SASS 摘要"),
    F(EP_CUOBJDUMP_FUNCTION_V, "cuobjdump: no function %s in v%d", "cuobjdump：没有函数 %s（v%d 中）"),
    F(EP_CUOBJDUMP_DUMP_SASS_GAVE, "cuobjdump --dump-sass gave no SASS for v%d (exit %d)",
      "cuobjdump --dump-sass 没有给出 v%d 的 SASS（退出码 %d）"),
    F(EP_NCU_GAVE_METRICS_V, "ncu gave no metrics for v%d (%s)%s%s", "ncu 没有给出 v%d 的指标（%s）%s%s"),
    F(EP_V_GAIN_CREDITED_SKILL, "v%d's gain is credited to skill %s: the version calls %s (%s; host-call mode, its kernels are not in the program's SASS)",
      "v%d 的收益归功于优化技能 %s：该版本调用了 %s（%s；主机调用模式，其核函数不在程序的 SASS 中）"),
    F(EP_V_GAIN_UNEXPLAINED_SKILL, "v%d's gain is unexplained: skill %s's version does not call the library",
      "v%d 的收益无法解释：优化技能 %s 的版本没有调用该库"),
    F(EP_V_GAIN_CREDITED_SKILL_2, "v%d's gain is credited to skill %s: its evidence /%s/ shows (%zu SASS lines, %zu in the baseline)",
      "v%d 的收益归功于优化技能 %s：其证据 /%s/ 出现了（SASS 中 %zu 行，基线中 %zu 行）"),
    F(EP_V_GAIN_UNEXPLAINED_SKILL_2, "v%d's gain is unexplained: skill %s expected /%s/ in the SASS (%zu lines, %zu in the baseline)",
      "v%d 的收益无法解释：优化技能 %s 预期 SASS 中出现 /%s/（%zu 行，基线中 %zu 行）"),
    F(EP_MEMORY_SAFETY_COMPUTE_SANITIZER_4, "memory safety: compute-sanitizer on the candidate (%s)",
      "内存安全：在候选版本上运行 compute-sanitizer（%s）"),
    F(EP_BASELINE_CANDIDATE_INTERLEAVED_PAIRS, "baseline and candidate interleaved: %zu pairs, separate processes",
      "基线和候选版本交替计时：%zu 对，独立进程"),
    F(EP_BASELINE_FAILED_WHILE_INTERLEAVED, "the baseline failed while interleaved (%s): %s",
      "交替计时时基线失败（%s）：%s"),
    F(EP_NOT_TEXT_FILE_AT, "%s %s is not a text file (%s at byte %zu)",
      "%s %s 不是文本文件（%s，位于第 %zu 字节）"),
    F(EP_VERIFY_CANDIDATE_NEEDS_HARNESS, "%s: verify-candidate needs a harness-form spec with a source",
      "%s：verify-candidate 需要带源文件的 harness 形式 bench spec"),
    F(EP_CANNOT_READ_BASELINE, "cannot read the baseline %s: %s", "无法读取基线 %s：%s"),
    F(EP_CANNOT_READ_CANDIDATE, "cannot read the candidate %s: %s", "无法读取候选版本 %s：%s"),
    M(EP_SIMULATED_GPU_NEEDS_SIM, "a simulated GPU needs sim_device and measure.wrapper",
      "模拟 GPU 需要 sim_device 和 measure.wrapper"),
    F(EP_COMPILING_BASELINE_CANDIDATE, "compiling the baseline and the candidate for %s",
      "为 %s 编译基线和候选版本"),
    F(EP_BASELINE_DOES_NOT_BUILD, "the baseline %s does not build:\n%s", "基线 %s 无法构建：\n%s"),
    F(EP_RUNNING_BASELINE_SET_INPUT, "running the baseline on the %s set of input combinations (%zu processes, one per size; outputs in %s)",
      "在 %s 输入组合集上运行基线（%zu 个进程，每个规模一个；输出在 %s）"),
    F(EP_BASELINE_FAILED, "the baseline failed (%s): %s", "基线失败（%s）：%s"),
    F(EP_JUDGING_CANDIDATE_RUN_TIMEOUT, "judging the candidate (run timeout %u ms)",
      "评判候选版本（运行超时 %u ms）"),
    M(EP_COMMAND_FORM_SPECS_ARE, "command-form specs are timed through CUPTI, NVIDIA only: optimize for DCU with a harness-form spec",
      "command 形式的 bench spec 通过 CUPTI 计时，只支持 NVIDIA：要针对 DCU 优化请用 harness 形式的 bench spec"),
    F(EP_CANNOT_WRITE_BENCHMARK_PROGRAM, "cannot write the benchmark program: %s", "无法写入基准测试程序：%s"),
    F(EP_ORIGINAL_KERNEL_DOES_NOT, "the original kernel does not build with the spec's harness:\n%s",
      "原始核函数无法用 bench spec 的 harness 构建：\n%s"),
    F(EP_BASELINE_FAILED_ACCURACY_SEEDS, "the baseline failed on the accuracy seeds (%s): %s",
      "基线在精度检查的随机种子上失败（%s）：%s"),
    F(EP_BASELINE_FAILED_WHILE_VERIFYING, "the baseline failed while verifying (%s): %s",
      "基线在验证时失败（%s）：%s"),
    F(EP_BUILT_BASELINE_HIPCC_OPTIMIZED, "%s; built the baseline for %s with hipcc, optimized and measured nothing",
      "%s；已用 hipcc 为 %s 构建基线，没有优化也没有测量"),
    F(EP_BUILT_BASELINE_CANDIDATES_MEASURED, "%s; built the baseline and %zu candidates, measured nothing",
      "%s；已构建基线和 %zu 个候选版本，没有任何测量"),
    F(EP_KERNEL_NOT_FOUND_START, "kernel %s not found in the start text", "起始文本中找不到核函数 %s"),
    F(EP_SPEC_LAUNCH_CANNOT_BE, "the spec's launch cannot be searched: %s",
      "无法搜索 bench spec 的启动配置：%s"),
    F(EP_ORIGINAL_PROGRAM_DOES_NOT, "the original program does not build (%s): %s",
      "原始程序无法构建（%s）：%s"),
    F(EP_ORIGINAL_PROGRAM_FAILED, "the original program failed (%s): %s", "原始程序失败（%s）：%s"),
    F(EP_ORIGINAL_PROGRAM_FAILED_WHILE, "the original program failed while verifying (%s): %s",
      "原始程序在验证时失败（%s）：%s"),
    F(EP_CANNOT_OPEN, "cannot open %s: %s", "无法打开 %s：%s"),
    F(EP_CANNOT_READ, "cannot read %s: %s", "无法读取 %s：%s"),
    F(EP_NOT_TEXT_FILE_AT_2, "%s is not a text file (%s at byte %zu)", "%s 不是文本文件（%s，位于第 %zu 字节）"),
    F(EP_CANNOT_ANALYSE, "cannot analyse %s: %s", "无法分析 %s：%s"),
    F(EP_GLOBAL_KERNEL_NAMED, "%s: no __global__ kernel named '%s'",
      "%s：没有名为 '%s' 的 __global__ 核函数"),
    F(EP_BENCH_SPEC_NOT_VALID, "the bench spec %s is not valid", "bench spec %s 无效"),
    F(EP_FOLDER_NOT_TRUSTED_TRUST, "%s %s, and its folder is not trusted: trust the folder first (hkls trust, :HyperKernelTrust, the command hyperkernel.trustFolder, or VS Code's workspace trust)",
      "bench spec %s %s，而它所在的目录不受信任：请先信任该目录（hkls trust、:HyperKernelTrust、命令 hyperkernel.trustFolder，或 VS Code 的工作区信任）"),
    F(EP_BENCHMARKS_KERNEL_NOT, "%s benchmarks kernel '%s', not '%s'", "%s 测试的是核函数 '%s'，不是 '%s'"),
    F(EP_TARGET_NOT_AN_NVIDIA, "--target %s: %s is not an NVIDIA architecture nvcc knows; accepted: %s",
      "--target %s：%s 不是 nvcc 已知的 NVIDIA 架构；可接受：%s"),
    F(EP_TARGET_EXPECTED_NVIDIA_NVIDIA, "--target %s: expected nvidia, nvidia:sm_XX, dcu or dcu:gfxNNN",
      "--target %s：应为 nvidia、nvidia:sm_XX、dcu 或 dcu:gfxNNN"),
    F(EP_CANNOT_CREATE_DIRECTORY_HISTORY, "cannot create the directory %s for the history database",
      "无法为历史数据库创建目录 %s"),
    F(EP_CANNOT_OPEN_HISTORY_DATABASE, "cannot open the history database %s: %s",
      "无法打开历史数据库 %s：%s"),
    F(EP_ENGINE_NOT_AVAILABLE_HERE, "engine '%s' is not available here (builtin is)",
      "引擎 '%s' 在这里不可用（可用的是 builtin）"),
    F(EP_CANNOT_CREATE_WORK_DIRECTORY, "cannot create a work directory: %s", "无法创建工作目录：%s"),
    F(EP_NOT_CREDITED_ONE, "%zu version measured faster than the baseline (best v%d, %.2fx) but not credited: no physical floor (%s); they stay candidates, not verified versions. --allow-no-floor (episodes.allowNoFloor) credits them",
      "%zu 个版本测得比基线快（最佳 v%d，%.2fx），但未计入：没有物理下限（%s）；它们仍是候选版本，不是经过验证的版本。--allow-no-floor（episodes.allowNoFloor）会计入"),
    F(EP_NOT_CREDITED, "%zu versions measured faster than the baseline (best v%d, %.2fx) but not credited: no physical floor (%s); they stay candidates, not verified versions. --allow-no-floor (episodes.allowNoFloor) credits them",
      "%zu 个版本测得比基线快（最佳 v%d，%.2fx），但未计入：没有物理下限（%s）；它们仍是候选版本，不是经过验证的版本。--allow-no-floor（episodes.allowNoFloor）会计入"),
    M(EP_UNTRUSTED_COMMAND, "runs its own build and run commands (command form)",
      "会运行它自己的构建和运行命令（command 形式）"),
    M(EP_UNTRUSTED_FLAGS, "passes compiler flags (compile_flags)", "会传入编译选项（compile_flags）"),
    M(EP_WHAT_BASELINE, "the baseline", "基线"),
    M(EP_WHAT_CANDIDATE, "the candidate", "候选版本"),
    M(EP_NO_FASTER_CREDITED, "no candidate was faster than the baseline with a credited speedup",
      "没有候选版本以可计入的加速比快过基线"),
    M(EP_NO_FASTER_NOISE,
      "no candidate was faster than the baseline by 2% or more (within one timed run's noise)",
      "没有候选版本比基线快 2% 或以上（差距在一次计时运行的噪声之内）"),
    F(MEAS_NO_OUTPUT, "no output file %s", "没有输出文件 %s"),
    F(MEAS_WRONG_ANSWER, "%s (max abs error %.3g, max rel error %.3g)",
      "%s（最大绝对误差 %.3g，最大相对误差 %.3g）"),
    F(MEAS_FAILED_AT, "%s on size %d, seed %lld, distribution %d: %s",
      "%s 在规模 %d、随机种子 %lld、分布 %d 上：%s"),
    F(MEAS_FP64_ADDED, "output '%s', on distribution %zu %s (added by the referee: the spec's are integer-valued), against the baseline's fp64 shadow over %zu combinations: %s",
      "输出 '%s'，在分布 %zu %s 上（由裁判追加：bench spec 的分布都是整数值），与基线的 fp64 影子版本在 %zu 个组合上对比：%s"),
    F(MEAS_FP64, "output '%s', against the baseline's fp64 shadow over %zu combinations: %s",
      "输出 '%s'，与基线的 fp64 影子版本在 %zu 个组合上对比：%s"),
    F(MEAS_BASE_NO_OUTPUT, "the baseline wrote no output file %s", "基线没有写出输出文件 %s"),
    F(MEAS_TIMING, "timing size %d: %s", "计时规模 %d：%s"),
    F(MEAS_NO_MEDIAN, "timing size %d: no positive median_ms in the result",
      "计时规模 %d：结果中没有为正的 median_ms"),
    F(MEAS_NO_SPREAD, "timing size %d: no spread in the result: its stability cannot be judged",
      "计时规模 %d：结果中没有波动数据：无法判断其稳定性"),
    F(MEAS_NO_RECHECK, "timing size %d: no re-check output written", "计时规模 %d：没有写出复查输出"),
    F(MEAS_UNFLUSHED, "timing size %d: the L2 flush before each timed launch was not done (flushed_l2 false, l2_bytes %.0f; median %.6g ms unverified): no time is credited",
      "计时规模 %d：每次计时启动前没有清空 L2（flushed_l2 为 false，l2_bytes %.0f；中位数 %.6g ms 未经验证）：不计入任何时间"),
    F(MEAS_UNSTABLE, "timing size %d: the spread (IQR / median of the timed launches) was %.3g, then %.3g in a fresh process (median %.6g ms, then %.6g ms, %d reps), above the bound %.3g: the time cannot be trusted",
      "计时规模 %d：波动（计时启动的 IQR / 中位数）为 %.3g，在新进程中为 %.3g（中位数 %.6g ms，然后 %.6g ms，%d 次重复），超过上限 %.3g：该时间不可信"),
    F(MEAS_BELOW_FLOOR, "median %.6g ms at size %d is below the physical floor %.6g ms (spec bytes/flops at the measured peaks %.4g GB/s, %.4g TFLOP/s): the kernel cannot have done the work",
      "中位数 %.6g ms（规模 %d）低于物理下限 %.6g ms（按 bench spec 的 bytes/flops 和实测峰值 %.4g GB/s、%.4g TFLOP/s 计算）：核函数不可能完成了这些工作"),
    F(MEAS_SECOND_LOOK_BASE, "the baseline failed during the second look at a %.1fx speedup (fresh seeds +%lld): %s (%s)",
      "复查 %.1fx 加速比时基线失败（新随机种子 +%lld）：%s（%s）"),
    F(MEAS_NOT_REPRODUCED, "a %.2fx speedup (over %.0fx) did not reproduce on the second look: %.2fx on fresh inputs (seed %lld, re-check %lld; baseline %.6g ms, candidate %.6g ms), outside +-%.0f%% of the first",
      "%.2fx 的加速比（超过 %.0fx）在复查中没有重现：在新输入上为 %.2fx（随机种子 %lld，复查 %lld；基线 %.6g ms，候选版本 %.6g ms），超出首次结果的 +-%.0f%%"),
    F(MEAS_RECHECK, "re-check after the timing loop (size %d, seed %lld): %s",
      "计时循环之后的复查（规模 %d，随机种子 %lld）：%s"),
    F(MEAS_STALLED, "no progress for %.1f s (combination %zu of %zu not finished): the process group was killed",
      "%.1f s 内没有进展（第 %zu 个组合，共 %zu 个，未完成）：进程组已被终止"),
    F(MEAS_NO_RESULT, "no result within %u s: the process group was killed",
      "%u s 内没有结果：进程组已被终止"),
    F(MEAS_KILLED, "killed by signal %d (%s)%s%s", "被信号 %d（%s）终止%s%s"),
    F(MEAS_EXIT_STATUS, "exit status %d (%s)%s%s", "退出状态 %d（%s）%s%s"),
    /* written by the launcher (include/hk_harness.h), stored in English as it wrote them */
    F(MEAS_LAUNCH_STATE, "the launch left __device__ variable %s (%zu bytes) changed: bytes %zu..%zu were %s before the launch and %s after it; a kernel must leave its writable globals as it found them (the launcher restores them before every launch)",
      "启动后 __device__ 变量 %s（%zu 字节）被改变：第 %zu..%zu 字节启动前为 %s，启动后为 %s；内核必须让它的可写全局变量保持原样（启动器在每次启动前恢复它们）"),
    F(MEAS_LAUNCH_UNRESTORED, "%zu writable global(s) of the kernel image (the first: %s) cannot be found in the loaded module, so the launcher cannot restore them before every launch",
      "内核映像中有 %zu 个可写全局变量（第一个：%s）在已加载的模块中找不到，启动器无法在每次启动前恢复它们"),
    F(MEAS_LAUNCH_FRAME, "the kernel's local frame and the context's stack reach %zu bytes per thread, more than the %zu the launcher clears before every launch: local memory beyond that keeps what one launch left for the next",
      "内核的局部栈帧加上上下文的栈可达每线程 %zu 字节，超过启动器在每次启动前清零的 %zu 字节：超出部分的局部内存会把一次启动留下的内容保留到下一次启动"),
    F(MEAS_PRIMING_AT, "priming launch at size %d: %s", "规模 %d 的预热启动：%s"),
    M(MEAS_LAUNCH_LENIENT,
      "the baseline's own launches change its writable globals: restored before every launch, not a rejection",
      "基线自身的启动会改变其可写全局变量：每次启动前都会恢复，不算拒绝"),
    M(EP_NO_GPU_DISABLED, "no GPU found: GPU use is disabled (HK_NO_GPU or the caller)",
      "未找到 GPU：GPU 已被禁用（HK_NO_GPU 或调用方）"),
    M(EP_NO_DCU_DISABLED, "no DCU GPU here: GPU use is disabled (HK_NO_GPU or the caller)",
      "这里没有 DCU GPU：GPU 已被禁用（HK_NO_GPU 或调用方）"),
    M(EP_NO_GPU_FOUND, "no GPU found: nvidia-smi lists none and /dev/nvidia0 is absent",
      "未找到 GPU：nvidia-smi 没有列出任何 GPU，且没有 /dev/nvidia0"),
    M(EP_NO_DCU_NO_KFD, "no DCU GPU here (no /dev/kfd: no HIP runtime can see an AMD/Hygon GPU)",
      "这里没有 DCU GPU（没有 /dev/kfd：HIP 运行时看不到任何 AMD/海光 GPU）"),
    M(EP_NO_DCU_NO_NODE, "no DCU GPU here (the KFD topology lists no GPU node: no HIP runtime can see an AMD/Hygon GPU)",
      "这里没有 DCU GPU（KFD 拓扑中没有 GPU 节点：HIP 运行时看不到任何 AMD/海光 GPU）"),
    F(EP_REJECT_LATE, "%s stage: %s", "%s 阶段：%s"),
    M(EP_NO_NVCC, "nvcc not found (PATH, CUDA_HOME, /usr/local/cuda/bin)",
      "未找到 nvcc（已查找 PATH、CUDA_HOME、/usr/local/cuda/bin）"),
    M(EP_NO_HIPCC, "hipcc not found (PATH, ROCM_PATH, /opt/rocm/bin, /opt/dtk/bin)",
      "未找到 hipcc（已查找 PATH、ROCM_PATH、/opt/rocm/bin、/opt/dtk/bin）"),
    F(EP_INTERNAL_ERROR, "internal error: %s", "内部错误：%s"),
    F(EP_ACCURACY_NOTE, "accuracy: %s", "精度：%s"),
    F(ORACLE_NONFINITE, "non-finite output: %zu elements are NaN/Inf where the baseline is finite (first at %lld: %g vs baseline %g)",
      "非有限输出：%zu 个元素为 NaN/Inf，而基线在这些位置是有限值（第一个在 %lld：%g，基线为 %g）"),
    F(ORACLE_WRONG, "wrong answer: %zu of %zu elements out of tolerance (first at %lld: %.9g vs baseline %.9g); max abs err %.3g, max rel err %.3g, rel L2 %.3g (rtol %g, atol %g%s)",
      "结果错误：%zu 个元素超出容差（共 %zu 个；第一个在 %lld：%.9g，基线为 %.9g）；最大绝对误差 %.3g，最大相对误差 %.3g，相对 L2 误差 %.3g（rtol %g，atol %g%s）"),
    F(ORACLE_WIDENING, " + widening %.3g", " + 放宽 %.3g"),
    F(ORACLE_WRONG_L2, "wrong answer: relative L2 error %.3g over the limit %g%s (max abs err %.3g, max rel err %.3g)",
      "结果错误：相对 L2 误差 %.3g 超过上限 %g%s（最大绝对误差 %.3g，最大相对误差 %.3g）"),
    M(ORACLE_WIDENED, " (widened)", "（已放宽）"),
    F(ORACLE_COUNT_MISMATCH, "output mismatch: %zu outputs, baseline has %zu",
      "输出不匹配：有 %zu 个输出，基线有 %zu 个"),
    F(ORACLE_ARG_MISMATCH, "output mismatch: output %zu is argument %u (%s x %llu), baseline has argument %u '%s' (%s x %llu)",
      "输出不匹配：输出 %zu 是参数 %u（%s x %llu），基线中是参数 %u '%s'（%s x %llu）"),
    F(ORACLE_OUTPUT, "output '%.40s': %.260s", "输出 '%.40s'：%.260s"),
    F(ORACLE_BASE_UNUSABLE, "baseline output unusable: %s", "基线输出不可用：%s"),
    F(ORACLE_CAND_UNUSABLE, "candidate output unusable: %s", "候选版本输出不可用：%s"),
    F(EP_STORE_FAILED, "store: %s", "存储：%s"),
    F(EP_REPORT_FAILED, "report: %s", "报告：%s"),
    M(SIG_HUP, "Hangup", "挂起（SIGHUP）"),
    M(SIG_INT, "Interrupt", "中断（SIGINT）"),
    M(SIG_QUIT, "Quit", "退出（SIGQUIT）"),
    M(SIG_ILL, "Illegal instruction", "非法指令"),
    M(SIG_TRAP, "Trace/breakpoint trap", "跟踪/断点陷阱"),
    M(SIG_ABRT, "Aborted", "已中止（SIGABRT）"),
    M(SIG_BUS, "Bus error", "总线错误"),
    M(SIG_FPE, "Floating point exception", "浮点异常"),
    M(SIG_KILL, "Killed", "已被杀死（SIGKILL）"),
    M(SIG_USR1, "User defined signal 1", "用户自定义信号 1"),
    M(SIG_SEGV, "Segmentation fault", "段错误"),
    M(SIG_USR2, "User defined signal 2", "用户自定义信号 2"),
    M(SIG_PIPE, "Broken pipe", "管道破裂"),
    M(SIG_ALRM, "Alarm clock", "闹钟信号（SIGALRM）"),
    M(SIG_TERM, "Terminated", "已终止（SIGTERM）"),
    M(SIG_XCPU, "CPU time limit exceeded", "超出 CPU 时间限制"),
    M(SIG_XFSZ, "File size limit exceeded", "超出文件大小限制"),
    F(ORACLE_OK, "ok: max abs err %.3g, max rel err %.3g, rel L2 %.3g",
      "通过：最大绝对误差 %.3g，最大相对误差 %.3g，相对 L2 误差 %.3g"),
    F(ORACLE_OK_ONE, "ok: 1 output within tolerance; max abs err %.3g, max rel err %.3g, rel L2 %.3g%s",
      "通过：1 个输出在容差之内；最大绝对误差 %.3g，最大相对误差 %.3g，相对 L2 误差 %.3g%s"),
    F(ORACLE_OK_MANY, "ok: %zu outputs within tolerance; max abs err %.3g, max rel err %.3g, rel L2 %.3g%s",
      "通过：%zu 个输出在容差之内；最大绝对误差 %.3g，最大相对误差 %.3g，相对 L2 误差 %.3g%s"),
    F(ORACLE_OK_WIDENED_ONE, "; 1 element%s within the tolerance widened by the baseline's own error",
      "；1 个元素%s在按基线自身误差放宽的容差之内"),
    F(ORACLE_OK_WIDENED_MANY, "; %zu elements%s within the tolerance widened by the baseline's own error",
      "；%zu 个元素%s在按基线自身误差放宽的容差之内"),
    M(ORACLE_OK_AND_L2, " and an L2 error", "及一个 L2 误差"),
    M(ORACLE_BY_TOLERANCE, "tolerance vs baseline", "相对基线的容差"),
    M(ORACLE_BY_REF64, "fp64 reference, error ratio", "fp64 参考结果，误差比"),
    M(ORACLE_BY_EXACT, "exact (integer output)", "精确比较（整数输出）"),
    M(ORACLE_BY_NONFINITE, "non-finite where the reference is finite", "参考结果有限处出现非有限值"),
    F(ORACLE_EXACT_OK, "ok (%s): %zu elements", "通过（%s）：%zu 个元素"),
    F(ORACLE_EXACT_DIFFER, "%s: %zu of %zu elements differ from the baseline (first at %lld: %.17g vs %.17g)",
      "%s：%zu 个元素与基线不同（共 %zu 个；第一个在 %lld：%.17g，基线为 %.17g）"),
    F(ORACLE_REF64_NONFINITE_ONE, "%s: %zu element is NaN/Inf where the fp64 reference is finite (first at %lld)",
      "%s：%zu 个元素为 NaN/Inf，而 fp64 参考结果在这些位置是有限值（第一个在 %lld）"),
    F(ORACLE_REF64_NONFINITE_MANY, "%s: %zu elements are NaN/Inf where the fp64 reference is finite (first at %lld)",
      "%s：%zu 个元素为 NaN/Inf，而 fp64 参考结果在这些位置是有限值（第一个在 %lld）"),
    M(ORACLE_MAX_ERROR, "max error", "最大误差"),
    M(ORACLE_REL_L2_ERROR, "relative L2 error", "相对 L2 误差"),
    F(ORACLE_RATIO, "%s %.3g vs the baseline's %.3g (k=%g, floor %.2g): %.3gx the baseline's own error",
      "%s %.3g，基线为 %.3g（k=%g，下限 %.2g）：是基线自身误差的 %.3g 倍"),
    F(ORACLE_RATIO_EXACT, "%s %.3g where the baseline is exact (k=%g, floor %.2g)",
      "%s %.3g，而基线是精确的（k=%g，下限 %.2g）"),
    F(ORACLE_RMS_RUNS, ", RMS over %zu runs", "，%zu 次运行的均方根"),
    F(ORACLE_BASE_NONFINITE, "; the baseline itself is non-finite at %zu elements where the reference is finite",
      "；基线自身在 %zu 个元素上是非有限值，而参考结果在这些位置是有限值"),
    F(ORACLE_REF64_OK, "ok (%s %.2g of the limit%s): max error %.3g (baseline %.3g), relative L2 error %.3g (baseline %.3g)%s",
      "通过（%s 为上限的 %.2g%s）：最大误差 %.3g（基线 %.3g），相对 L2 误差 %.3g（基线 %.3g）%s"),
    F(ORACLE_REF64_WRONG, "%s: %s%s (worst element %lld)%s", "%s：%s%s（最差的元素 %lld）%s"),
    M(EP_ISO_BWRAP, "bwrap sandbox: no network, read-only root filesystem, private /tmp and /dev, only the work directory writable",
      "bwrap 沙箱：无网络，根文件系统只读，/tmp 和 /dev 私有，只有工作目录可写"),
    M(EP_ISO_NAMESPACES, "namespace sandbox (no bwrap): no network, read-only root filesystem, private /tmp and /dev, own process ids, only the work directory writable",
      "命名空间沙箱（没有 bwrap）：无网络，根文件系统只读，/tmp 和 /dev 私有，独立的进程号，只有工作目录可写"),
    M(EP_ISO_UNSHARE_NET, "network namespace (unshare): no network; the filesystem is not isolated",
      "网络命名空间（unshare）：无网络；文件系统未隔离"),
    M(EP_ISO_NONE, "none: plain child process (no bwrap, and unshare not permitted)",
      "无：普通子进程（没有 bwrap，且不允许 unshare）"),
    M(EP_CORRECT_HARNESS, "checked by the harness: candidate outputs against the baseline's on fresh seeds, poisoned outputs, unchanged inputs, timed launches re-checked against the baseline's kernel (docs/referee.md)",
      "由测试框架检查：在新的随机种子上把候选版本的输出与基线的输出比较，输出缓冲区预先投毒，检查输入未被修改，计时的启动与基线核函数重新比对（docs/referee.md）"),
    M(EP_CORRECT_CMD, "checked by your program: its exit status and pass/fail output decide; the harness's poisoned outputs, unchanged-input, tolerance and checked-timing rules do not apply. Times come from the CUPTI injection library's records, each stamped with a nonce drawn for the run; a program of yours that reads its environment before its first CUDA call could still see the nonce",
      "由你的程序检查：由它的退出状态和通过/失败输出决定；测试框架的输出投毒、输入不变、容差和受检计时规则都不适用。时间来自 CUPTI 注入库的记录，每条都带有本次运行抽取的随机数（nonce）；你的程序若在第一次 CUDA 调用之前读取环境变量，仍可能看到这个随机数"),
    F(EP_CORRECT_WIDENED, "%s; the tolerance against the baseline widened by twice the baseline's own error against its fp64 shadow (%s)",
      "%s；相对基线的容差放宽了基线相对其 fp64 影子的自身误差的两倍（%s）"),
    M(EP_CREDIT_NO_SASS, "no SASS to look for the evidence in (cuobjdump missing or failed)",
      "没有可查找证据的 SASS（缺少 cuobjdump 或其运行失败）"),
    F(SAN_NOTE, "memory safety: %s", "内存安全：%s"),
    F(SAN_VERSION_NOTE, "v%d: %s", "v%d：%s"),
    F(SAN_NOT_CHECKED, "not checked (%s)", "未检查（%s）"),
    F(SAN_NOT_CLAIMED, "not checked (the candidate claims %.2fx, not over %.0fx; --sanitize checks it anyway)",
      "未检查（候选版本声称 %.2fx，未超过 %.0fx；--sanitize 可强制检查）"),
    M(SAN_SIMULATED, "simulated GPU", "模拟 GPU"),
    M(SAN_DCU, "DCU target: compute-sanitizer is NVIDIA-only", "DCU 目标：compute-sanitizer 仅支持 NVIDIA"),
    M(SAN_NOT_FOUND, "compute-sanitizer not found", "未找到 compute-sanitizer"),
    F(SAN_TURNED_OFF, "turned off: HK_COMPUTE_SANITIZER=%s", "已关闭：HK_COMPUTE_SANITIZER=%s"),
    F(SAN_NOT_EXECUTABLE, "compute-sanitizer not found: HK_COMPUTE_SANITIZER=%s is not an executable",
      "未找到 compute-sanitizer：HK_COMPUTE_SANITIZER=%s 不是可执行文件"),
    F(SAN_AT_SIZE, "run mode at size %d (%lld elements in the largest buffer%s), seed %lld",
      "运行模式，规模 %d（最大的缓冲区有 %lld 个元素%s），随机种子 %lld"),
    F(SAN_AT_SIZE_SHORT, "run mode at size %d, seed %lld", "运行模式，规模 %d，随机种子 %lld"),
    M(SAN_LARGE, ": large for the tools, which run 10-100x slower", "：对这些工具来说偏大，它们会慢 10-100 倍"),
    M(SAN_NET_ONLY, "; in the network-only sandbox: the tool could not launch its target in the namespace sandbox",
      "；在仅隔离网络的沙箱中：该工具无法在命名空间沙箱中启动目标程序"),
    F(SAN_PASSED, "checked by compute-sanitizer (memcheck, racecheck, initcheck: no findings; %s)",
      "已由 compute-sanitizer 检查（memcheck、racecheck、initcheck：没有发现问题；%s）"),
    F(SAN_PASSED_INHERITED, "checked by compute-sanitizer (memcheck, racecheck, initcheck: no findings of the candidate's own; %s reports what it reports in the original kernel, on lines the candidate keeps unchanged: %s; %s)",
      "已由 compute-sanitizer 检查（memcheck、racecheck、initcheck：候选版本自身没有问题；%s 报告的是它在原始核函数中也报告的问题，位于候选版本未改动的行上：%s；%s）"),
    F(SAN_PASSED_SIGNATURES, "checked by compute-sanitizer (memcheck, racecheck, initcheck: no findings of the candidate's own; %s reports only invalid accesses the original kernel makes too, every one printed and compared by kind, size, allocation and offset: %s; %s)",
      "已由 compute-sanitizer 检查（memcheck、racecheck、initcheck：候选版本自身没有问题；%s 只报告原始核函数也有的非法访问，每一个都已打印并按类型、大小、分配和偏移比较：%s；%s）"),
    F(SAN_REJECTED, "rejected (%s): %s", "已拒绝（%s）：%s"),
    F(SAN_NOT_FULLY, "not fully checked (%s; %s; %s; %s)", "未完全检查（%s；%s；%s；%s）"),
    F(SAN_TOOL_CLEAN, "%s no findings", "%s 没有发现问题"),
    F(SAN_TOOL_NOT_CHECKED, "%s not checked: %s", "%s 未检查：%s"),
    F(SAN_TOOL_NOT_CHECKED_BARE, "%s not checked", "%s 未检查"),
    F(SAN_TOOL_NOT_RUN, "%s not run: %s", "%s 未运行：%s"),
    F(SAN_TOOL_NOT_RUN_BARE, "%s not run", "%s 未运行"),
    F(SAN_TIMED_OUT, "timed out after %u s without a finding", "%u s 后超时，没有发现问题"),
    F(SAN_TOOL_FAILED, "the tool failed: %s", "工具运行失败：%s"),
    F(SAN_TOOL_KILLED, "the tool was killed by signal %d", "工具被信号 %d 终止"),
    F(SAN_TOOL_EXIT, "the tool failed (exit status %d)", "工具运行失败（退出状态 %d）"),
    F(SAN_PROGRAM_EXITED, "the program exited %d (%s) under the tool without a finding%s%s",
      "程序在工具下以 %d（%s）退出，没有发现问题%s%s"),
    F(SAN_CREDIT_INCOMPLETE,
      "memory safety could not be checked (compute-sanitizer %s: %s): a speedup over %.0fx is "
      "credited only once the tools have checked it, and this candidate claims %.2fx; measured, "
      "not credited",
      "内存安全未能检查完（compute-sanitizer %s：%s）：超过 %.0fx 的加速比须经工具检查后才计入，该候选声称 %.2fx；已测量，未计入"),
    F(EP_MEMORY_SAFETY_TIMED, "memory safety: compute-sanitizer on %s again at the timed size %d, one launch",
      "内存安全：对 %s 在计时规模 %d 上再次运行 compute-sanitizer（单次启动）"),
    F(SAN_TIMED_NOTE, "%s; at the timed size, one launch: %s", "%s；在计时规模上（单次启动）：%s"),
    F(EP_VER_ACCEPTED, "v%d: %.4g ms, %.2fx%s (%s)", "v%d：%.4g ms，%.2fx%s（%s）"),
    F(EP_VER_UNCREDITED, "v%d: %.4g ms, %.2fx, not credited: no physical floor (%s)",
      "v%d：%.4g ms，%.2fx，未计入：没有物理下限（%s）"),
    F(EP_VER_BEHIND, "v%d: %.4g ms, %.2fx, behind the leader: ranked, not fully checked (%s)",
      "v%d：%.4g ms，%.2fx，落后于当前最优：已排名，未做完整校验（%s）"),
    F(EP_VER_OTHER, "v%d %s (%s)", "v%d %s（%s）"),
    F(EP_VER_REASON, "v%d %s: %s (%s)", "v%d %s：%s（%s）"),
    M(EP_VER_FLAGGED, ", flagged for a second look", "，标记为需要复查"),
    F(CLI_LOG_ERROR, "error: %s\n", "错误：%s\n"),
    F(CLI_LOG_WARNING, "warning: %s\n", "警告：%s\n"),
    M(RPC_TOO_MANY, "too many requests in progress", "进行中的请求过多"),
    M(RPC_NO_MEMORY, "out of memory", "内存不足"),
    M(RPC_CANCELLED, "request cancelled", "请求已取消"),
    M(RPC_ID_IN_PROGRESS, "a request with this id is in progress", "具有此 id 的请求正在进行中"),
    F(RPC_METHOD_NOT_FOUND, "method not found: %.200s", "未找到方法：%.200s"),
    M(RPC_NO_ANSWER, "the server did not answer this request", "服务器没有应答此请求"),
    F(RPC_TOO_DEEP, "JSON nested deeper than %d levels", "JSON 嵌套超过 %d 层"),
    F(RPC_INVALID_JSON, "invalid JSON: %s (at byte %d)", "无效的 JSON：%s（位于第 %d 字节）"),
    M(RPC_BATCH, "batch messages are not used by LSP", "LSP 不使用批量消息"),
    M(RPC_NOT_OBJECT, "a message must be a JSON object", "消息必须是 JSON 对象"),
    M(RPC_METHOD_NUL, "method name contains NUL", "方法名中含有 NUL"),
    M(CLI_RW_USAGE, "usage: hkls rewrites FILE --kernel NAME [--spec SPEC.json] [--hip] [--json]\n       hkls rewrites FILE --kernel NAME --emit REWRITE[+REWRITE...] [--param [REWRITE.]N=V]...\n                [--spec SPEC.json] [--device S,W] [--hip]\n       hkls rewrites FILE --kernel NAME --spec SPEC.json --proposals N\n                [--class CLASS] [--time PATTERN=MS]... [--device S,W] [--hip]\nWhat the built-in engine recognises in a kernel, without a GPU: the class the\nkernel model gives it (or the construct that came closest), then every rewrite\nwith whether it applies at its default parameters and, when it does not, the\nconstruct and line that stop it.\n  --kernel NAME  the kernel (template arguments left out)\n  --spec SPEC    the kernel's bench spec (some rewrites read its sizes)\n  --hip          ask as for an AMD/DCU build\n  --json         {kernel, class, near, rewrites: [{name, kind, applies,\n                 construct, line, reason, grid}]} (grid: the launch an\n                 algorithm that applies needs, when not the spec's own)\n  --emit REWRITE the whole source as REWRITE leaves it, at its default\n                 parameters (launch shape and grid are the search's, not here);\n                 A+B: B applied to A's output (a stacked candidate of the search)\n  --param N=V    with --emit: the rewrite's parameter N at V (repeatable),\n                 e.g. --emit warp_rows --param row_threads=512; REWRITE.N=V\n                 for a rewrite of a stack other than the first\n  --device S,W   the device's SM count and resident warps per SM (132,64 on an\n                 H200), for rewrites that size themselves to it; default unknown\n  --proposals N  the first N candidates the built-in search proposes after the\n                 baseline (an episode's --budget N), with the shipped skills'\n                 plan for CLASS on sm_90 (or gfx906 with --hip); no GPU: each\n                 candidate is reported as timed by --time (below), so the\n                 orders that follow results (second choices, stacks) show\n  --class CLASS  memory-bound, compute-bound, latency-bound or unknown (the\n                 baseline's measured roofline class; default unknown)\n  --time P=MS    a candidate whose description holds P is reported at MS (the\n                 baseline at 1; first match wins; repeatable); others at 1\nExit 0, 1 when the file cannot be read or parsed or has no such kernel (or\nREWRITE does not apply: the reason on stderr), 2 for usage errors.\n",
      "用法：hkls rewrites FILE --kernel NAME [--spec SPEC.json] [--hip] [--json]\n      hkls rewrites FILE --kernel NAME --emit REWRITE[+REWRITE...] [--param [REWRITE.]N=V]...\n               [--spec SPEC.json] [--device S,W] [--hip]\n      hkls rewrites FILE --kernel NAME --spec SPEC.json --proposals N\n               [--class CLASS] [--time PATTERN=MS]... [--device S,W] [--hip]\n不用 GPU，显示内置引擎在核函数中识别出的内容：核函数模型给出的类别（或最接近的\n结构），然后列出每个代码改写在默认参数下是否适用；不适用时，列出挡住它的结构和行号。\n  --kernel NAME  核函数（不含模板参数）\n  --spec SPEC    核函数的 bench spec（有些代码改写会读取其中的规模）\n  --hip          按 AMD/DCU 构建来判断\n  --json         {kernel, class, near, rewrites: [{name, kind, applies,\n                 construct, line, reason, grid}]}（grid：适用的算法所需的\n                 启动配置，当它不是 bench spec 自己的启动配置时）\n  --emit REWRITE 输出 REWRITE 在默认参数下改写后的整个源文件（启动形状和网格\n                 由搜索决定，这里不改）；A+B：把 B 应用到 A 的输出上（搜索中\n                 叠加的候选版本）\n  --param N=V    与 --emit 同用：把代码改写的参数 N 设为 V（可重复），例如\n                 --emit warp_rows --param row_threads=512；REWRITE.N=V 用于\n                 叠加中非第一个的代码改写\n  --device S,W   设备的 SM 数和每个 SM 的驻留 warp 数（H200 上为 132,64），\n                 供按设备确定大小的代码改写使用；默认未知\n  --proposals N  内置搜索在基线之后提出的前 N 个候选版本（相当于优化任务的\n                 --budget N），使用随附优化技能在 sm_90（用 --hip 时为 gfx906）\n                 上针对 CLASS 的计划；没有 GPU：每个候选版本按 --time（见下）\n                 报告计时，以显示依赖结果的顺序（次优选择、叠加）\n  --class CLASS  memory-bound、compute-bound、latency-bound 或 unknown（基线\n                 实测的屋顶线模型类别；默认 unknown）\n  --time P=MS    描述中含有 P 的候选版本按 MS 报告（基线为 1；第一个匹配生效；\n                 可重复）；其他为 1\n退出码：0；文件无法读取或解析、或没有该核函数时为 1（或 REWRITE 不适用：原因\n写在 stderr）；用法错误为 2。\n"),
    F(CF_CANNOT_READ, "cannot read %s: %s",
      "无法读取 %s：%s"),
    F(CF_CANNOT_CREATE, "cannot create %s: %s",
      "无法创建 %s：%s"),
    F(CF_CANNOT_WRITE, "cannot write %s: %s",
      "无法写入 %s：%s"),
    F(CF_WS_OVER, "the workspace is over %llu bytes (at %s)",
      "工作区超过 %llu 字节（在 %s 处）"),
    F(CF_WS_OVER_FILE, "the workspace is over %llu bytes (at %s, %lld bytes): narrow the spec's workdir or skip the directory holding large files",
      "工作区超过 %llu 字节（在 %s 处，%lld 字节）：请缩小 bench spec 的 workdir，或跳过存放大文件的目录"),
    F(CF_TOO_DEEP, "directories nested deeper than %d levels at %s",
      "目录嵌套超过 %d 层（在 %s 处）"),
    F(CF_CANNOT_READ_DIR, "cannot read the directory %s: %s",
      "无法读取目录 %s：%s"),
    F(CF_CANNOT_STAT, "cannot stat %s: %s",
      "无法获取 %s 的文件信息：%s"),
    F(CF_TOO_MANY_FILES, "the workspace has more than %zu files (at %s)",
      "工作区的文件超过 %zu 个（在 %s 处）"),
    F(CF_CANNOT_READ_LINK, "cannot read the link %s: %s",
      "无法读取符号链接 %s：%s"),
    F(CF_CANNOT_CREATE_LINK, "cannot create the link %s: %s",
      "无法创建符号链接 %s：%s"),
    F(CF_NOT_DIR, "%s is not a directory",
      "%s 不是目录"),
    F(CF_CANNOT_RESOLVE_EITHER, "cannot resolve %s or %s: %s",
      "无法解析路径 %s 或 %s：%s"),
    F(CF_COPY_INSIDE, "the copy %s would be inside the workspace %s",
      "副本 %s 会位于工作区 %s 之内"),
    F(CF_CANNOT_ANALYSE, "cannot analyse %s: %s",
      "无法分析 %s：%s"),
    F(CF_NO_DEFINITION_ONE, "%s has no definition of the kernel %s (%zu other kernel found%s)",
      "%s中没有核函数 %s 的定义（找到 %zu 个其他核函数%s）"),
    F(CF_NO_DEFINITION, "%s has no definition of the kernel %s (%zu other kernels found%s)",
      "%s中没有核函数 %s 的定义（找到 %zu 个其他核函数%s）"),
    M(CF_SYNTAX_ERRORS, "; it has syntax errors",
      "；其中有语法错误"),
    M(CF_WHERE_SOURCE, "the source file",
      "源文件"),
    M(CF_WHERE_CANDIDATE, "the candidate",
      "候选版本"),
    M(CF_WHERE_ORIGINAL, "the original",
      "原始版本"),
    F(CF_PP_LINE, "the candidate's definition of %s has a preprocessor line the original's does not, line %u: `%s` (a directive inside the kernel acts on the code after it too; in the command form only the kernel may change)",
      "候选版本中 %s 的定义有一行原始版本没有的预处理指令，第 %u 行：`%s`（核函数内的指令也会作用于其后的代码；command 形式中只允许修改核函数）"),
    F(CF_DROPS_LINE, "the candidate drops line %u of the original, outside the definition of %s (in the command form only the kernel may change): `%s`",
      "候选版本删去了原始版本的第 %u 行，它在 %s 的定义之外（command 形式中只允许修改核函数）：`%s`"),
    F(CF_CHANGES_LINE, "the candidate changes line %u, outside the definition of %s (in the command form only the kernel may change): `%s`",
      "候选版本修改了第 %u 行，它在 %s 的定义之外（command 形式中只允许修改核函数）：`%s`"),
    F(CF_NO_RECORDS, "no CUPTI records were written (%s): the injection library was not loaded (no GPU or CUDA driver, CUPTI missing, or the program never called CUDA)",
      "没有写出 CUPTI 记录（%s）：注入库未被加载（没有 GPU 或 CUDA 驱动、缺少 CUPTI，或程序从未调用 CUDA）"),
    F(CF_RECORDS_TOO_BIG, "the CUPTI records file %s is over %zu bytes",
      "CUPTI 记录文件 %s 超过 %zu 字节"),
    F(CF_NOT_RECORD_LINE, "%s:%zu: not a CUPTI record line",
      "%s:%zu：不是 CUPTI 记录行"),
    F(CF_NOT_RECORD_LINE_WHY, "%s:%zu: not a CUPTI record line: %s",
      "%s:%zu：不是 CUPTI 记录行：%s"),
    F(CF_NO_NONCE, "%s:%zu: a record line without this run's nonce: not written by the injection library of this run (forged or replayed)",
      "%s:%zu：记录行没有本次运行的随机数（nonce）：不是本次运行的注入库写的（伪造或重放）"),
    F(CF_TOO_MANY_PIDS, "%s: more than %d processes wrote records",
      "%s：超过 %d 个进程写了记录"),
    F(CF_RECORD_INCOMPLETE, "%s:%zu: a kernel record without name, start or end",
      "%s:%zu：核函数记录缺少名称、开始时间或结束时间"),
    F(CF_RECORD_BEFORE_INIT, "%s:%zu: a kernel record of process %lld before its init line",
      "%s:%zu：进程 %lld 的核函数记录出现在其初始化行之前"),
    F(CF_RECORD_ENDS_FIRST, "%s:%zu: kernel %s ends (%lld ns) before it starts (%lld ns)",
      "%s:%zu：核函数 %s 的结束时间（%lld ns）早于开始时间（%lld ns）"),
    F(CF_NO_INIT, "%s has no init line: the CUPTI injection library was not loaded",
      "%s 没有初始化行：CUPTI 注入库未被加载"),
    F(CF_CUPTI_FAILED, "CUPTI failed in process %lld: %s",
      "CUPTI 在进程 %lld 中出错：%s"),
    F(CF_CUPTI_DROPPED, "CUPTI dropped %llu kernel records: the kernel time would be incomplete",
      "CUPTI 丢弃了 %llu 条核函数记录：核函数时间会不完整"),
    F(CF_NO_EXIT, "process %lld did not exit normally (no exit line in %s): its kernel records may be incomplete",
      "进程 %lld 没有正常退出（%s 中没有退出行）：其核函数记录可能不完整"),
    F(CF_NOT_LAUNCHED_ONE, "kernel %s was not launched (the program launched %u other kernel: %s)",
      "核函数 %s 没有被启动（程序启动了 %u 个其他核函数：%s）"),
    F(CF_NOT_LAUNCHED, "kernel %s was not launched (the program launched %u other kernels: %s)",
      "核函数 %s 没有被启动（程序启动了 %u 个其他核函数：%s）"),
    F(CF_NOT_LAUNCHED_NONE, "kernel %s was not launched (the program launched no kernel at all)",
      "核函数 %s 没有被启动（程序根本没有启动任何核函数）"),
    M(CF_NO_OUTPUT, " (no output)",
      "（无输出）"),
    M(CF_OUTPUT_TRUNCATED, "\n(output truncated)",
      "\n（输出已截断）"),
    F(CF_RUN_NOT_STARTED, "the run command could not be started: %s",
      "运行命令无法启动：%s"),
    F(CF_RUN_TIME_LIMIT, "the run command was stopped after %ld ms (time limit); its output:%s",
      "运行命令在 %ld ms 后被停止（时间限制）；其输出：%s"),
    F(CF_RUN_CPU_LIMIT, "the run command hit the CPU time limit; its output:%s",
      "运行命令达到 CPU 时间限制；其输出：%s"),
    F(CF_RUN_FILE_LIMIT, "the run command hit the file size limit; its output:%s",
      "运行命令达到文件大小限制；其输出：%s"),
    F(CF_RUN_MEMORY_LIMIT, "the run command hit the memory limit; its output:%s",
      "运行命令达到内存限制；其输出：%s"),
    F(CF_RUN_SIGNAL, "the run command was killed by signal %d (%s); its output:%s",
      "运行命令被信号 %d（%s）终止；其输出：%s"),
    F(CF_PROGRAM_SIGNAL, "the program was killed by signal %d (%s; the shell's status %d); its output:%s",
      "程序被信号 %d（%s；shell 的退出状态 %d）终止；其输出：%s"),
    F(CF_RUN_EXIT, "the run command exited with status %d; its output:%s",
      "运行命令以状态 %d 退出；其输出：%s"),
    F(CF_RUN_EXIT_PRINTED, "the run command exited with status %d and printed \"%s\"; its output:%s",
      "运行命令以状态 %d 退出，并输出了 \"%s\"；其输出：%s"),
    F(CF_FAIL_REGEX, "the output matches fail_regex \"%s\": \"%s\"; its output:%s",
      "输出匹配 fail_regex \"%s\"：\"%s\"；其输出：%s"),
    F(CF_NO_PASS, "the output does not match pass_regex \"%s\"; its output:%s",
      "输出不匹配 pass_regex \"%s\"；其输出：%s"),
    F(CF_CANNOT_READ_INJ_SRC, "cannot read the injection library's source %s",
      "无法读取注入库的源文件 %s"),
    F(CF_NO_CUPTI, "CUPTI not found under %s (no %s)",
      "在 %s 下找不到 CUPTI（没有 %s）"),
    F(CF_INJ_UNREADABLE, "the CUPTI injection library %s cannot be read",
      "无法读取 CUPTI 注入库 %s"),
    M(CF_NO_INJ, "no CUPTI injection library (libhk_cupti.so): build the hk_cupti target or set HK_CUPTI_LIB",
      "没有 CUPTI 注入库（libhk_cupti.so）：请构建 hk_cupti 目标，或设置 HK_CUPTI_LIB"),
    F(CF_CANNOT_RESOLVE, "cannot resolve %s: %s",
      "无法解析路径 %s：%s"),
    F(CF_SOURCE_OUTSIDE, "the source %s is outside the workdir %s: only files of the workdir are copied and swapped",
      "源文件 %s 不在 workdir %s 之内：只有 workdir 中的文件会被复制和替换"),
    F(CF_SOURCE_SKIPPED, "the source %s lies in %s, which the workspace copy skips",
      "源文件 %s 位于 %s 中，而复制工作区时会跳过它"),
    F(CF_CANNOT_MKDIR, "cannot create a directory in %s: %s",
      "无法在 %s 中创建目录：%s"),
    F(CF_CANNOT_COPY_INJ, "cannot copy the injection library %s to %s",
      "无法把注入库 %s 复制到 %s"),
    F(CF_CANNOT_COPY_WS, "cannot copy the workspace: %s",
      "无法复制工作区：%s"),
    F(CF_CANNOT_SWAP, "cannot swap the kernel into %s: %s",
      "无法把核函数替换进 %s：%s"),
    F(CF_BUILD_NOT_STARTED, "the build command could not be started: %s",
      "构建命令无法启动：%s"),
    F(CF_BUILD_TIME_LIMIT, "the build command was stopped after %ld ms (time limit %u ms)",
      "构建命令在 %ld ms 后被停止（时间限制 %u ms）"),
    F(CF_BUILD_SIGNAL, "the build command was killed by signal %d:\n%s",
      "构建命令被信号 %d 终止：\n%s"),
    F(CF_BUILD_EXIT, "the build command exited with status %d:\n%s",
      "构建命令以状态 %d 退出：\n%s"),
    F(CF_RUN_N_NO_INJ, "run %u: %s\nThe CUPTI injection library was never loaded: no GPU or CUDA driver here?",
      "第 %u 次运行：%s\nCUPTI 注入库从未被加载：这里没有 GPU 或 CUDA 驱动？"),
    F(CF_RUN_N, "run %u: %s",
      "第 %u 次运行：%s"),
    M(FLOOR_NO_FORMULA, "the spec has no bytes or flops formula",
      "bench spec 没有 bytes 或 flops 公式"),
    M(FLOOR_NO_PEAKS, "the device's peaks are unknown (the device probe failed, or it does not run on this GPU)",
      "设备的峰值未知（设备探测失败，或它没有在这块 GPU 上运行）"),
    M(FLOOR_NO_BANDWIDTH, "the spec has a bytes formula but the peak bandwidth is unknown",
      "bench spec 有 bytes 公式，但峰值带宽未知"),
    M(FLOOR_NO_FP32, "the spec has a flops formula but the peak FP32 rate is unknown",
      "bench spec 有 flops 公式，但 FP32 峰值算力未知"),
    M(FLOOR_NONE_APPLIES, "no floor applies",
      "没有适用的物理下限"),
    M(FLOOR_CMDFORM, "a command-form spec has no bytes or flops formula",
      "command 形式的 bench spec 没有 bytes 或 flops 公式"),
    F(CREDIT_NO_FLOOR_ALLOWED, "no physical floor (%s): the speedup is credited because no-floor credit was allowed (--allow-no-floor)",
      "没有物理下限（%s）：因为允许无下限计入（--allow-no-floor），加速比已计入"),
    F(CREDIT_NO_FLOOR, "no physical floor (%s): the speedup is measured but not credited; --allow-no-floor (episodes.allowNoFloor) credits it",
      "没有物理下限（%s）：加速比已测量，但未计入；--allow-no-floor（episodes.allowNoFloor）可计入它"),
    F(CREDIT_BEHIND, "behind the leader (%.4g ms against its %.4g ms): timed, its timed launches re-checked against the baseline's kernel, the full correctness set not run",
      "落后于当前领先版本（%.4g ms，领先版本 %.4g ms）：已计时，其计时的各次启动已对照基线核函数复查，未运行完整的正确性检查集"),
    F(CREDIT_DRIFT, "%.2fx is within the drift between processes (baseline %.0f%%, candidate %.0f%%: credited only above %.2fx)",
      "%.2fx 在进程间漂移范围之内（基线 %.0f%%，候选版本 %.0f%%：只有高于 %.2fx 才计入）"),
    F(MEAS_AT_COMBO, "size %d, seed %lld, distribution %d: %s",
      "规模 %d，种子 %lld，分布 %d：%s"),
    F(MEAS_AT_COMBO_ADDED, "size %d, seed %lld, distribution %d %s (added by the referee): %s",
      "规模 %d，种子 %lld，分布 %d %s（由裁判追加）：%s"),
    M(MEAS_BASELINE_FAILED, "the baseline failed",
      "基线运行失败"),
    F(MEAS_BASE_UNRELIABLE, "the baseline cannot be timed reliably: %s",
      "基线无法可靠计时：%s"),
    F(MEAS_SECOND_LOOK_AT, "second look at a %.1fx speedup, fresh seeds (+%lld): %s",
      "复查 %.1fx 的加速比，使用新种子（+%lld）：%s"),
    F(MEAS_FLAG_NOTE, "speedup over %.0fx: verified again on fresh inputs (%zu combinations, seeds +%lld) and re-measured in fresh processes: first %.2fx, second %.2fx (baseline %.6g ms, candidate %.6g ms); correctness re-checked",
      "加速比超过 %.0fx：已在新输入上再次验证（%zu 种组合，种子 +%lld），并在新进程中重新测量：第一次 %.2fx，第二次 %.2fx（基线 %.6g ms，候选版本 %.6g ms）；正确性已复查"),
    F(MEAS_FP64_SHADOW_FAILED, "the fp64 shadow failed (%s): %s",
      "fp64 影子版本运行失败（%s）：%s"),
    M(CHECK_TIMED_OUT, "the compiler timed out and was killed",
      "编译器超时，已被终止"),
    F(CHECK_FAILED_EXIT, "the compiler failed (exit %d): %s",
      "编译器失败（退出码 %d）：%s"),
    M(CHECK_FAILED, "the compiler failed",
      "编译器失败"),
    M(CHECK_NO_NVCC, "nvcc not found (PATH, CUDA_HOME, /usr/local/cuda/bin)",
      "找不到 nvcc（已查找 PATH、CUDA_HOME、/usr/local/cuda/bin）"),
    M(CHECK_NO_HIPCC, "hipcc not found (PATH, ROCM_PATH, /opt/rocm/bin, /opt/dtk/bin)",
      "找不到 hipcc（已查找 PATH、ROCM_PATH、/opt/rocm/bin、/opt/dtk/bin）"),
    F(CHECK_CANNOT_READ, "cannot read: %s",
      "无法读取：%s"),
    M(CHECK_TOO_BIG, "file larger than 16 MiB",
      "文件大于 16 MiB"),
    M(CHECK_NO_MEMORY, "out of memory",
      "内存不足"),
    M(CHECK_CANNOT_READ_BARE, "cannot read",
      "无法读取"),
    M(CHECK_NOT_TEXT_BARE, "not a text file",
      "不是文本文件"),
    M(CHECK_NUL_BYTE, "a NUL byte",
      "NUL 字节"),
    M(CHECK_BAD_UTF8, "invalid UTF-8",
      "无效的 UTF-8"),
    F(MEAS_CC_NOT_STARTED, "could not start the compiler: %s",
      "无法启动编译器：%s"),
    F(MEAS_CC_TOOK_TOO_LONG, "the compiler took longer than %ld ms and was killed",
      "编译器耗时超过 %ld ms，已被终止"),
    F(MEAS_CC_CPU_LIMIT,
      "the compiler was stopped at its CPU time limit (%u s per process; HK_COMPILE_CPU_S "
      "sets it)",
      "编译器达到 CPU 时间限制被终止（每个进程 %u 秒；由 HK_COMPILE_CPU_S 设置）"),
    F(MEAS_CC_FILE_LIMIT,
      "the compiler was stopped at its file size limit (%llu MiB per file written; "
      "HK_COMPILE_FILE_MB sets it)",
      "编译器达到文件大小限制被终止（每个写出的文件 %llu MiB；由 HK_COMPILE_FILE_MB 设置）"),
    F(MEAS_CC_MEMORY_LIMIT_AS,
      "the compiler ran out of memory under its limit (%llu MiB of address space per "
      "process; HK_COMPILE_MEMORY_MB sets it)",
      "编译器在内存限制内耗尽了内存（每个进程 %llu MiB 地址空间；由 HK_COMPILE_MEMORY_MB 设置）"),
    F(MEAS_CC_MEMORY_LIMIT_NONE,
      "the compiler ran out of memory under its limit (%llu MiB asked for; none could be set "
      "here; HK_COMPILE_MEMORY_MB sets it)",
      "编译器耗尽了内存（请求的限制为 %llu MiB，但本机无法设置任何内存限制；由 "
      "HK_COMPILE_MEMORY_MB 设置）"),
    F(MEAS_CC_MEMORY_LIMIT,
      "the compiler ran out of memory under its limit (%llu MiB for the whole compile; "
      "HK_COMPILE_MEMORY_MB sets it)",
      "编译器在内存限制内耗尽了内存（整个编译共 %llu MiB；由 HK_COMPILE_MEMORY_MB 设置）"),
    F(MEAS_CC_SILENT, "the compiler exited with status %d and printed nothing",
      "编译器以状态 %d 退出，没有任何输出"),
    M(MEAS_CC_FAILED, "compile failed",
      "编译失败"),
    F(MEAS_CC_IMAGE_UNREADABLE, "the kernel image %s cannot be read: %s",
      "无法读取核函数镜像 %s：%s"),
    M(MEAS_CC_NO_ENTRY, "no kernel entry in the image",
      "镜像中没有核函数入口"),
    M(REP_DIFF_TOO_LARGE, "the diff is too large to show (over the report's caps)",
      "差异太大，无法显示（超过报告的上限）"),
    M(MEAS_CLK_NO_IMAGE, "no kernel image: the program is the engine's own library call",
      "没有核函数镜像：该程序是引擎自身的库调用"),
    M(MEAS_CLK_DCU_NO_ASM,
      "a DCU code object without its assembly beside it (module-hip-amdgcn-*.s)",
      "DCU 代码对象旁边没有它的汇编（module-hip-amdgcn-*.s）"),
    F(MEAS_CLK_NO_PTX, "no PTX beside the image (%s)",
      "镜像旁边没有 PTX（%s）"),
    F(MEAS_CLK_PTX_0,
      "the candidate's device code reads a clock (%s, PTX line %ld: %s), which the baseline's "
      "does not: a kernel that reads a clock can tell timed, checked and sanitized launches "
      "apart",
      "候选版本的设备代码读取了时钟（%s，PTX 第 %ld 行：%s），而基线的没有：读取时钟的核函数能区分"
      "计时、检查和 sanitizer 下的启动"),
    F(MEAS_CLK_PTX_1,
      "the candidate's device code reads the global timer (%s, PTX line %ld: %s), which the baseline's "
      "does not: a kernel that reads a clock can tell timed, checked and sanitized launches "
      "apart",
      "候选版本的设备代码读取了全局计时器（globaltimer）（%s，PTX 第 %ld 行：%s），而基线的没有：读取时钟的核函数能区分"
      "计时、检查和 sanitizer 下的启动"),
    F(MEAS_CLK_PTX_2,
      "the candidate's device code reads a performance counter (%s, PTX line %ld: %s), which the baseline's "
      "does not: a kernel that reads a clock can tell timed, checked and sanitized launches "
      "apart",
      "候选版本的设备代码读取了性能计数器（%s，PTX 第 %ld 行：%s），而基线的没有：读取时钟的核函数能区分"
      "计时、检查和 sanitizer 下的启动"),
    F(MEAS_CLK_PTX_3,
      "the candidate's device code has a ptxas preprocessor line (inline asm could spell a register out of pieces there) (%s, PTX line %ld: %s), which the baseline's "
      "does not: a kernel that reads a clock can tell timed, checked and sanitized launches "
      "apart",
      "候选版本的设备代码含有 ptxas 预处理行（内联汇编可借此把寄存器名拆开拼出）（%s，PTX 第 %ld 行：%s），而基线的没有：读取时钟的核函数能区分"
      "计时、检查和 sanitizer 下的启动"),
    F(MEAS_CLK_PTX_4,
      "the candidate's device code reads the launch number (%s, PTX line %ld: %s), which the baseline's "
      "does not: %%gridid counts the context's launches, a clock that tells a process's first, "
      "checked and sanitized launch from its later, timed ones",
      "候选版本的设备代码读取了启动序号（%s，PTX 第 %ld 行：%s），而基线的没有：%%gridid 对上下文中的"
      "启动计数，相当于一个时钟，能区分进程中第一次（检查和 sanitizer 下的）启动与之后计时的启动"),
    F(MEAS_CLK_ASM_0,
      "the candidate's device code reads a clock (%s, assembly line %ld: %s), which the baseline's "
      "does not: a kernel that reads a clock can tell timed, checked and sanitized launches "
      "apart",
      "候选版本的设备代码读取了时钟（%s，汇编第 %ld 行：%s），而基线的没有：读取时钟的核函数能区分"
      "计时、检查和 sanitizer 下的启动"),
    F(MEAS_CLK_ASM_1,
      "the candidate's device code reads the real-time clock (%s, assembly line %ld: %s), which the baseline's "
      "does not: a kernel that reads a clock can tell timed, checked and sanitized launches "
      "apart",
      "候选版本的设备代码读取了实时时钟（%s，汇编第 %ld 行：%s），而基线的没有：读取时钟的核函数能区分"
      "计时、检查和 sanitizer 下的启动"),
    F(MEAS_CLK_ASM_2,
      "the candidate's device code reads a performance counter (%s, assembly line %ld: %s), which the baseline's "
      "does not: a kernel that reads a clock can tell timed, checked and sanitized launches "
      "apart",
      "候选版本的设备代码读取了性能计数器（%s，汇编第 %ld 行：%s），而基线的没有：读取时钟的核函数能区分"
      "计时、检查和 sanitizer 下的启动"),
    F(MEAS_CLK_ASM_3,
      "the candidate's device code has an assembler line that can spell an instruction out of pieces or raw words (%s, assembly line %ld: %s), which the baseline's "
      "does not: a kernel that reads a clock can tell timed, checked and sanitized launches "
      "apart",
      "候选版本的设备代码含有能把指令拆开拼出或用原始字写出的汇编行（%s，汇编第 %ld 行：%s），而基线的没有：读取时钟的核函数能区分"
      "计时、检查和 sanitizer 下的启动"),
    F(MEAS_LOCAL_PTX_0,
      "the candidate's inline asm reaches local memory (%s, PTX line %ld: %s), which the baseline's "
      "does not: local memory outside the kernel's frame is not cleared before a launch, so a "
      "kernel can leave a mark there in one launch and find it in the next, and behave "
      "differently in the timed launches than in the checked and sanitized ones first",
      "候选版本的内联汇编访问了局部内存（%s，PTX 第 %ld 行：%s），"
      "而基线的没有：核函数栈帧以外的局部内存在启动前不会被清零，核函数可以在一次启动中留下标记、在下一次启动中读到，"
      "从而在计时的启动中与先前检查和 sanitizer 下的启动表现不同"),
    F(MEAS_LOCAL_PTX_1,
      "the candidate's device code allocates on the dynamic stack (%s, PTX line %ld: %s), which the baseline's "
      "does not: local memory outside the kernel's frame is not cleared before a launch, so a "
      "kernel can leave a mark there in one launch and find it in the next, and behave "
      "differently in the timed launches than in the checked and sanitized ones first",
      "候选版本的设备代码在动态栈上分配内存（%s，PTX 第 %ld 行：%s），"
      "而基线的没有：核函数栈帧以外的局部内存在启动前不会被清零，核函数可以在一次启动中留下标记、在下一次启动中读到，"
      "从而在计时的启动中与先前检查和 sanitizer 下的启动表现不同"),
    F(MEAS_LOCAL_PTX_2,
      "the candidate's device code makes a call whose stack the kernel's frame does not include: recursion or a call through a pointer (%s, PTX line %ld: %s), which the baseline's "
      "does not: local memory outside the kernel's frame is not cleared before a launch, so a "
      "kernel can leave a mark there in one launch and find it in the next, and behave "
      "differently in the timed launches than in the checked and sanitized ones first",
      "候选版本的设备代码含有栈不在核函数栈帧之内的调用：递归或经由指针的调用（%s，PTX 第 %ld 行：%s），"
      "而基线的没有：核函数栈帧以外的局部内存在启动前不会被清零，核函数可以在一次启动中留下标记、在下一次启动中读到，"
      "从而在计时的启动中与先前检查和 sanitizer 下的启动表现不同"),
    F(MEAS_LOCAL_PTX_3,
      "the candidate's local frame is larger than the 64 KiB the launcher clears before each launch (%s, PTX line %ld: %s), which the baseline's "
      "does not: local memory outside the kernel's frame is not cleared before a launch, so a "
      "kernel can leave a mark there in one launch and find it in the next, and behave "
      "differently in the timed launches than in the checked and sanitized ones first",
      "候选版本的局部栈帧大于启动器在每次启动前清零的 64 KiB（%s，PTX 第 %ld 行：%s），"
      "而基线的没有：核函数栈帧以外的局部内存在启动前不会被清零，核函数可以在一次启动中留下标记、在下一次启动中读到，"
      "从而在计时的启动中与先前检查和 sanitizer 下的启动表现不同"),
    M(MEAS_LOCAL_DCU,
      "a DCU code object: its assembly is not read for local memory",
      "DCU 代码对象：未检查其汇编中的局部内存访问"),
    F(MEAS_HEAP_PTX,
      "the candidate's device code uses the device heap (%s, PTX line %ld: %s), which the baseline's "
      "does not: nothing clears the heap between launches and malloc hands a freed block back "
      "with what an earlier launch wrote in it, so a kernel can leave a mark there in one launch "
      "and find it in the next, and behave differently in the timed launches than in the "
      "checked and sanitized ones first",
      "候选版本的设备代码使用了设备堆（%s，PTX 第 %ld 行：%s），而基线的没有："
      "两次启动之间设备堆不会被清零，malloc 会把释放过的内存块连同先前启动写入的内容一起再次分配出来，"
      "核函数可以在一次启动中留下标记、在下一次启动中读到，"
      "从而在计时的启动中与先前检查和 sanitizer 下的启动表现不同"),
    M(MEAS_HEAP_DCU,
      "a DCU code object: its assembly is not read for the device heap",
      "DCU 代码对象：未检查其汇编中的设备堆使用"),
    F(MEAS_RUN_NOT_STARTED, "could not start %s: %s", "无法启动 %s：%s"),
    M(MEAS_RUN_NO_RESULT, "exit status 0 without a result line",
      "退出状态为 0，但没有输出结果行"),
    F(MEAS_RUN_NO_RESULT_SAYS, "exit status 0 without a result line: %s",
      "退出状态为 0，但没有输出结果行：%s"),
    M(MEAS_NOTE_MEDIAN_AGREES, "the median agrees across processes",
      "各进程的中位数一致"),
    M(MEAS_NOTE_THREE_MEDIANS,
      "three processes' medians within the drift bound: the middle one is kept, and a "
      "speedup is credited only beyond the drift",
      "三个进程的中位数都在漂移界限内：取居中的一个，加速比只有超出漂移的部分才计入"),
    M(MEAS_WHY_NO_FP64_SHADOW,
      "no fp64 shadow of the baseline (the kernel allows none, or it is switched off: see "
      "accuracy_reference); only NaN/Inf where the baseline is finite, the harness's own "
      "checks and integer outputs were judged on it",
      "没有基线的 fp64 影子参考（该核函数不允许，或已关闭：见 accuracy_reference）；"
      "只依据基线为有限值处的 NaN/Inf、harness 自身的检查和整数输出做了判定"),
    M(MEAS_WHY_ONE_SIZE,
      "the spec has one size: no launch at another size could leave state behind",
      "bench spec 只有一种规模：不会有其他规模的启动留下残留状态"),
    F(SK_UNKNOWN_KEY, "unknown key (allowed here: %s)",
      "未知的键（此处允许：%s）"),
    M(SK_MISSING, "missing (required)",
      "缺失（必填）"),
    M(SK_NOT_STRING, "must be a string",
      "必须是字符串"),
    M(SK_NUL_CHARACTER, "contains a NUL character",
      "含有 NUL 字符"),
    M(SK_EMPTY, "must not be empty",
      "不能为空"),
    F(SK_TOO_SHORT, "too short (%zu characters, at least %zu)",
      "太短（%zu 个字符，至少 %zu 个）"),
    F(SK_TOO_LONG, "too long (%zu characters, at most %zu)",
      "太长（%zu 个字符，最多 %zu 个）"),
    F(SK_BAD_REGEX, "bad regular expression \"%.200s\": %s",
      "正则表达式 \"%.200s\" 有误：%s"),
    F(SK_HARDWARE_LIST, "must be a list of 1 to %d arch names (\"sm_90\", \"gfx906\", \"sm_*\", \"gfx9*\")",
      "必须是含 1 到 %d 个架构名的列表（\"sm_90\"、\"gfx906\"、\"sm_*\"、\"gfx9*\"）"),
    M(SK_NOT_ARCH, "not an arch name or prefix pattern (\"sm_90\", \"gfx90a\", \"sm_*\", \"gfx9*\")",
      "不是架构名或前缀模式（\"sm_90\"、\"gfx90a\"、\"sm_*\"、\"gfx9*\"）"),
    F(SK_ARCH_WRONG_DIR, "\"%s\" does not belong in directory %s (its arches start with %s)",
      "\"%s\" 不属于目录 %s（该目录的架构以 %s 开头）"),
    F(SK_NO_ARCH_OF_DIR, "no entry matches the directory's arch %s",
      "没有一项与该目录的架构 %s 匹配"),
    F(SK_UNKNOWN_METRIC_KEY, "unknown metric (known: %s)",
      "未知的指标（已知：%s）"),
    M(SK_THRESHOLD_OBJECT, "must be an object {\"min\": N, \"max\": N}",
      "必须是对象 {\"min\": N, \"max\": N}"),
    M(SK_NOT_NUMBER, "must be a number",
      "必须是数字"),
    F(SK_OUT_OF_RANGE, "%g is outside the metric's range [%g, %g]",
      "%g 超出该指标的范围 [%g, %g]"),
    M(SK_THRESHOLD_EMPTY, "needs \"min\", \"max\" or both",
      "需要 \"min\"、\"max\" 或两者"),
    F(SK_MIN_ABOVE_MAX, "min %g is above max %g",
      "最小值 %g 大于最大值 %g"),
    M(SK_QUERY_SYNTAX, "syntax error",
      "语法错误"),
    M(SK_QUERY_NODE_TYPE, "unknown node type",
      "未知的节点类型"),
    M(SK_QUERY_FIELD, "unknown field",
      "未知的字段"),
    M(SK_QUERY_CAPTURE, "unknown capture",
      "未知的捕获"),
    M(SK_QUERY_STRUCTURE, "impossible pattern structure",
      "不可能成立的模式结构"),
    M(SK_QUERY_LANGUAGE, "language mismatch",
      "语言不匹配"),
    M(SK_QUERY_ERROR, "error",
      "错误"),
    F(SK_PREDICATE_UNSUPPORTED, "unsupported predicate #%s (supported: #eq?, #not-eq?, #match?, #not-match?)",
      "不支持的谓词 #%s（支持：#eq?、#not-eq?、#match?、#not-match?）"),
    F(SK_PREDICATE_ARGS, "#%s takes a capture and a capture or string",
      "#%s 需要一个捕获，以及一个捕获或字符串"),
    F(SK_PREDICATE_REGEX, "#%s needs a string regex as its second argument",
      "#%s 的第二个参数必须是正则表达式字符串"),
    F(SK_QUERY_AT, "%s at line %u column %u (offset %u): \"%.40s\"",
      "%s，位于第 %u 行第 %u 列（偏移 %u）：\"%.40s\""),
    F(SK_QUERY_AT_END, "%s at the end of the query (line %u column %u)",
      "%s，位于查询末尾（第 %u 行第 %u 列）"),
    M(SK_NO_PATTERN, "has no pattern",
      "没有模式"),
    M(SK_PATTERN_FIRST, "must start with a pattern, not a predicate or a stray token",
      "必须以模式开头，而不是谓词或多余的记号"),
    M(SK_APPLIES_OBJECT, "must be an object with \"query\", \"pattern\", \"metrics\"",
      "必须是含 \"query\"、\"pattern\"、\"metrics\" 的对象"),
    M(SK_METRICS_OBJECT, "must be an object of metric name -> {\"min\", \"max\"}",
      "必须是“指标名 -> {\"min\", \"max\"}”形式的对象"),
    M(SK_REWRITE_OBJECT, "must be an object with \"name\" and \"params\"",
      "必须是含 \"name\" 和 \"params\" 的对象"),
    F(SK_UNKNOWN_REWRITE, "unknown rewrite \"%s\" (known: %s)",
      "未知的代码改写 \"%s\"（已知：%s）"),
    F(SK_PARAMS_OBJECT, "must be an object of at most %d tunables, each a list of values to try",
      "必须是最多含 %d 个可调参数的对象，每个参数是待尝试取值的列表"),
    M(SK_TUNABLE_NAME, "tunable names are lower-case identifiers",
      "可调参数名必须是小写标识符"),
    F(SK_VALUES_LIST, "must be a list of 1 to %d values to try, in order",
      "必须是含 1 到 %d 个待尝试取值的列表，按顺序排列"),
    F(SK_VALUES_MIXED, "values must be all numbers or all strings (entry %zu)",
      "取值必须全是数字或全是字符串（第 %zu 项）"),
    F(SK_VALUE_TWICE, "value at entry %zu is listed twice",
      "第 %zu 项的取值重复列出"),
    M(SK_LAUNCH_PAIRS, "must be [1] (pair block_size with blocks_per_sm entry by entry) or [0]",
      "必须是 [1]（block_size 与 blocks_per_sm 逐项配对）或 [0]"),
    F(SK_LAUNCH_PAIRS_COUNT, "pairs block_size (%zu values) with blocks_per_sm (%zu values): both need the same number of values, at least 2",
      "block_size（%zu 个取值）与 blocks_per_sm（%zu 个取值）配对：两者的取值个数必须相同，且至少为 2"),
    M(SK_EVIDENCE_OBJECT, "must be an object with \"sass\" and/or \"metric\"",
      "必须是含 \"sass\" 和/或 \"metric\" 的对象"),
    M(SK_EVIDENCE_EMPTY, "needs \"sass\" or \"metric\" (a change without evidence is never credited)",
      "需要 \"sass\" 或 \"metric\"（没有证据的改动永远不会被计入）"),
    M(SK_EVIDENCE_METRIC_OBJECT, "must be an object {\"name\": METRIC, \"change\": \"increase\"|\"decrease\"}",
      "必须是对象 {\"name\": METRIC, \"change\": \"increase\"|\"decrease\"}"),
    F(SK_UNKNOWN_METRIC, "unknown metric \"%s\"",
      "未知的指标 \"%s\""),
    M(SK_CHANGE_WORD, "must be \"increase\" or \"decrease\"",
      "必须是 \"increase\" 或 \"decrease\""),
    F(SK_FILE_TOO_BIG, "file is %zu bytes, over the %d KiB cap",
      "文件有 %zu 字节，超过 %d KiB 的上限"),
    F(SK_CANNOT_READ, "cannot read: %s",
      "无法读取：%s"),
    F(SK_BAD_JSON, "bad JSON at line %d column %d: %s",
      "JSON 有误，位于第 %d 行第 %d 列：%s"),
    M(SK_NOT_OBJECT, "a skill is a JSON object",
      "优化技能必须是 JSON 对象"),
    F(SK_BAD_ID, "\"%s\": use lower-case letters, digits, '-', '_' and '.'",
      "\"%s\"：只能使用小写字母、数字、'-'、'_' 和 '.'"),
    F(SK_ID_NOT_FILE, "\"%s\" does not match the file name (%s.json)",
      "\"%s\" 与文件名（%s.json）不符"),
    F(SK_UNKNOWN_CLASS, "unknown class \"%s\" (memory-bound, compute-bound, latency-bound)",
      "未知的类别 \"%s\"（memory-bound、compute-bound、latency-bound）"),
    F(SK_CLASS_WRONG_DIR, "\"%s\" but the file is in the %s directory",
      "写的是 \"%s\"，但文件位于 %s 目录"),
    M(SK_GUIDANCE_SHORT, "write at least two sentences an LLM prompt can use",
      "请至少写两句可供 LLM 提示词使用的话"),
    F(SK_DIR_UNREADABLE, "cannot read the directory: %s",
      "无法读取该目录：%s"),
    F(SK_TOO_MANY_ENTRIES, "more than %d entries",
      "超过 %d 个条目"),
    M(SK_UNEXPECTED_DIR, "unexpected directory: skills are <hardware>/<class>/<id>.json",
      "意外的目录：优化技能应位于 <hardware>/<class>/<id>.json"),
    F(SK_TOO_MANY_SKILLS, "more than %d skills",
      "超过 %d 个优化技能"),
    M(SK_MISPLACED, "misplaced skill: skills are <hardware>/<class>/<id>.json",
      "优化技能位置不对：应位于 <hardware>/<class>/<id>.json"),
    M(SK_UNKNOWN_HW_DIR, "unknown hardware directory (known: nvidia-sm90, nvidia-sm80, dcu-gfx9)",
      "未知的硬件目录（已知：nvidia-sm90、nvidia-sm80、dcu-gfx9）"),
    M(SK_CANNOT_LIST, "cannot list the directory",
      "无法列出该目录"),
    M(SK_UNKNOWN_CLASS_DIR, "unknown class directory (known: memory-bound, compute-bound, latency-bound)",
      "未知的类别目录（已知：memory-bound、compute-bound、latency-bound）"),
    F(SK_DUPLICATE_ID, "\"%s\" is also the id of %s",
      "\"%s\" 也是 %s 的 id"),
    M(SK_NONE_FOUND, "no skills found (expected <hardware>/<class>/<id>.json)",
      "未找到优化技能（应位于 <hardware>/<class>/<id>.json）"),
    M(SK_MORE_PROBLEM, "... and 1 more problem",
      "……另有 1 个问题"),
    F(SK_MORE_PROBLEMS, "... and %zu more problems",
      "……另有 %zu 个问题"),
    F(SK_PROBLEMS_NO_ROOM, "%zu problems (no room to list them)",
      "%zu 个问题（没有空间列出）"),
    F(SK_NOT_SKILLS_DIR, "%s: not a directory of skills",
      "%s：不是优化技能目录"),
    F(SK_SET_DIR_UNREADABLE, "%s: cannot read the directory: %s",
      "%s：无法读取该目录：%s"),
    M(SK_OOM, "out of memory while loading skills",
      "加载优化技能时内存不足"),
    F(LSP_COMPILER_EXITED, "%s exited with status %d: %.400s",
      "%s 以状态 %d 退出：%.400s"),
    M(LSP_COMPILER_NO_OUTPUT, "(no output)",
      "（无输出）"),
    F(LSP_ERR_BAD_STATUS,
      "unknown status \"%.60s\" (running, completed, stopped, failed, interrupted)",
      "未知状态 \"%.60s\"（可用：running、completed、stopped、failed、interrupted）"),
    M(LSP_ERR_BAD_LIMIT, "limit must be an integer 1..10000",
      "limit 必须是 1..10000 之间的整数"),
    M(LSP_ERR_NOT_DECODED, "the message could not be decoded",
      "无法解码该消息"),
    M(REP_CHAIN_TO_BEST, "Chain from baseline to best: ",
      "从基线到最佳版本的版本链："),
    /* ---- rewrites and search (session 34) ---- */
    F(SRCH_KNOB_INITIALISES, "initialises the value %s",
      "初始化了值 %s"),
    F(SRCH_KNOB_TOO_DEEP, "feeds %s through too many locals to follow",
      "经过太多局部变量传递 %s，无法跟踪"),
    F(SRCH_KNOB_LOOP_BOUND_READS, "used in the bound of a loop that reads %.*s[]",
      "用于读取 %.*s[] 的循环的边界"),
    M(SRCH_KNOB_LOOP_BOUND, "used in the bound of a loop",
      "用于循环的边界"),
    F(SRCH_KNOB_SIZES_SHARED, "sizes the shared array %.*s[] with no loop that steps by it",
      "决定共享内存数组 %.*s[] 的大小，但没有以它为步长的循环"),
    F(SRCH_KNOB_SIZES_ARRAY, "sizes the array %.*s[], which is indexed by other than a loop over %s",
      "决定数组 %.*s[] 的大小，而该数组的下标不是遍历 %s 的循环变量"),
    F(SRCH_KNOB_SUBSCRIPT, "used in a subscript of %.*s[]",
      "用于 %.*s[] 的下标"),
    F(SRCH_KNOB_CONDITION, "used in the condition of %.*s",
      "用于 %.*s 的条件"),
    M(SRCH_KNOB_RETURNED, "used in a returned value",
      "用于返回值"),
    F(SRCH_KNOB_STORED, "used in the value stored to %.*s",
      "用于写入 %.*s 的值"),
    M(SRCH_KNOB_EXPRESSION, "used in an expression",
      "用于表达式"),
    F(SRCH_KNOB_KERNEL_ARG, "passed to the kernel %s as an argument",
      "作为实参传给核函数 %s"),
    F(SRCH_KNOB_TEMPLATE_ARG, "a template argument of the kernel %s",
      "是核函数 %s 的模板实参"),
    F(SRCH_KNOB_HOST, "used in host code outside a launch configuration: `%s`",
      "用于启动配置之外的主机端代码：`%s`"),
    F(SRCH_KNOB_DECLARATION, "used in the declaration of %s",
      "用于 %s 的声明"),
    M(SRCH_KNOB_OUTSIDE, "used outside the kernel and its launches",
      "用于核函数及其启动之外"),
    M(SRCH_KNOB_MACRO, "used in a macro",
      "用于宏"),
    M(SRCH_KNOB_DIRECTIVE, "used in a preprocessor directive",
      "用于预处理指令"),
    F(SRCH_KNOB_COARSEN_NO_GRID, "gives each thread %s elements, but no launch in the file sizes its grid by it",
      "让每个线程处理 %s 个元素，但文件中没有任何启动按它来确定网格大小"),
    M(SRCH_KNOB_ROLE_BLOCK, "the block size",
      "线程块大小"),
    M(SRCH_KNOB_ROLE_UNROLL, "an unroll factor",
      "循环展开因子"),
    F(SRCH_TEMPLATE_AT_LAUNCH, "a template parameter is set at the launch sites, and only the kernel's definition may change (line %u)",
      "模板参数在启动处设定，而只有核函数的定义可以修改（第 %u 行）"),
    F(SRCH_DEFINED_OUTSIDE, "defined outside the kernel, and only the kernel's definition may change (line %u)",
      "定义在核函数之外，而只有核函数的定义可以修改（第 %u 行）"),
    M(SRCH_STACK_CHANGES_LAUNCH, "its output changes the launch",
      "它的输出改变了启动配置"),
    F(SRCH_NOT_STACKED, "%s not stacked on %s: %s",
      "%s 未叠加在 %s 之上：%s"),
    F(SRCH_OWN_LAUNCH, "%s, the kernel's own launch",
      "%s，核函数自己的启动配置"),
    F(SRCH_SPEC_GRID, "%s, the spec's grid",
      "%s，bench spec 的网格"),
    F(SRCH_BLOCK_SPEC_GRID, "; block %u (the spec's grid: %lld blocks of %u for %d SMs)",
      "；线程块 %u（bench spec 的网格：%lld 个线程块，每块 %u 个线程，共 %d 个 SM）"),
    M(SRCH_CMDFORM_NO_LAUNCH, "a command-form spec has no launch configuration to vary",
      "命令形式的 bench spec 没有可调整的启动配置"),
    F(SRCH_BLOCK_DIM_RANGE, "block dimension %d is not an integer in 1..1024",
      "线程块维度 %d 不是 1..1024 之间的整数"),
    M(SRCH_BLOCK_TOO_MANY, "the block has more than 1024 threads",
      "线程块的线程数超过 1024"),
    M(SRCH_STACKED_ON, "stacked on the leading structural candidates:",
      "叠加在领先的结构性候选版本上："),
    F(SRCH_KNOB_WHY_VIA, "%s: %s (line %u)",
      "%s：%s（第 %u 行）"),
    F(SRCH_KNOB_WHY, "%s (line %u)",
      "%s（第 %u 行）"),
    F(SRCH_KNOB_VIA, "through %s",
      "经由 %s"),
    F(SRCH_KNOB_VIA_MORE, "%s, through %s",
      "%s，经由 %s"),
    M(SRCH_KNOB_ROLE_TILE, "a tile size",
      "分块大小"),
    M(SRCH_KNOB_ROLE_LAUNCH, "a launch dimension",
      "启动维度"),
    M(SRCH_KNOB_NOT_USED, "not used",
      "未被使用"),
    F(RW_PARAM_NOT_ALLOWED, "%s: parameter %s = %d is not allowed",
      "%s：参数 %s = %d 不被允许"),
    F(RW_NOT_APPLICABLE_TO, "%s not applicable to kernel %s: %s",
      "%s 不适用于核函数 %s：%s"),
    F(RW_MODEL_CANNOT_BUILD, "the kernel model cannot be built: %s",
      "无法构建核函数模型：%s"),
    F(RW_REFUSAL_AT, "%s at line %d: %s",
      "%s（第 %d 行）：%s"),
    M(RW_NOT_APPLICABLE, "not applicable",
      "不适用"),
    M(RW_C_TEMPLATE_KERNEL, "template kernel",
      "模板核函数"),
    M(RW_C_GRID_STRIDE_LOOP, "grid-stride loop",
      "网格跨步循环"),
    M(RW_C_ATOMIC, "atomic",
      "原子操作"),
    M(RW_C_SHARED_ARRAY, "__shared__ array",
      "__shared__ 数组"),
    M(RW_C_LOOP, "loop",
      "循环"),
    M(RW_C_THREAD_INDEX, "thread index",
      "线程索引"),
    M(RW_C_BOUNDS_CHECK, "bounds check",
      "边界检查"),
    M(RW_C_ACCUMULATOR, "accumulator",
      "累加器"),
    M(RW_C_PARAMETER_LIST, "parameter list",
      "参数列表"),
    M(RW_C_MATH_CALL, "math call",
      "数学函数调用"),
    M(RW_C_STATEMENT, "statement",
      "语句"),
    M(RW_C_KERNEL_BODY, "kernel body",
      "核函数体"),
    M(RW_C_KERNEL, "kernel",
      "核函数"),
    M(RW_C_PARAMETERS, "parameters",
      "参数"),
    M(RW_PARAMS_REFUSED, "parameters the rewrite refuses",
      "该代码改写不接受的参数"),
    M(RW_NO_CHOICE_PLANNED, "no choice of its parameters was planned",
      "没有规划该优化技能的任何参数选择"),
    F(RW_CLI_GRID_DIV, "the spec's grid / %u along %c",
      "bench spec 的网格 / %u（沿 %c 方向）"),
    F(RW_CLI_GRID_MUL, "the spec's grid x %u along %c",
      "bench spec 的网格 × %u（沿 %c 方向）"),
    M(RW_CLI_NO_DEFAULTS, "has no default parameters: the search chooses them per kernel",
      "没有默认参数：由搜索为每个核函数选择"),
    F(RW_CLI_NO_MODEL, "no kernel model: %s",
      "没有核函数模型：%s"),
    F(RW_CLI_NEAR, "%s (line %u): %s",
      "%s（第 %u 行）：%s"),
    F(RW_CLI_KERNEL_CLASS, "kernel %s: class %s\n",
      "核函数 %s：类别 %s\n"),
    F(RW_CLI_CLOSEST, "closest: %s\n",
      "最接近的类别：%s\n"),
    M(RW_CLI_HEAD_REWRITE, "rewrite",
      "代码改写"),
    M(RW_CLI_HEAD_KIND, "kind",
      "类型"),
    M(RW_CLI_HEAD_APPLIES, "applies",
      "是否适用"),
    M(RW_CLI_HEAD_STOPS, "what stops it",
      "阻止原因"),
    F(RW_CLI_STOP_LINE, "line %lld: %s",
      "第 %lld 行：%s"),
    F(RW_CLI_LAUNCHED_WITH, "(launched with %s)",
      "（以 %s 启动）"),
    M(RW_CLI_KERNEL_GONE, "the kernel is gone",
      "该核函数已不存在"),
    M(RW_CLI_OOM, "(out of memory)",
      "（内存不足）"),
    F(RW_POW_DESC_ONE, "kernel %s: %zu pow/powf call with a run-time exponent (the first at line %d) multiplied out for exponents 0-4%s",
      "核函数 %s：%zu 个指数在运行时才确定的 pow/powf 调用（第一个在第 %d 行）在指数为 0-4 时展开为乘法%s"),
    F(RW_POW_DESC, "kernel %s: %zu pow/powf calls with a run-time exponent (the first at line %d) multiplied out for exponents 0-4%s",
      "核函数 %s：%zu 个指数在运行时才确定的 pow/powf 调用（第一个在第 %d 行）在指数为 0-4 时展开为乘法%s"),
    M(RW_POW_AND_LITERAL, ", and the literal ones routed the same way",
      "，指数为字面量的调用也改走同一路径"),
    F(RW_FLIT_DESC_ONE_ONE, "kernel %s: %zu double literal in float arithmetic written as float (%zu statement, the first at line %zu): the statements compute in FP32 instead of converting every operand to FP64 (within tolerance: float rounding of the intermediates)",
      "核函数 %s：浮点运算中的 %zu 个 double 字面量改写为 float（%zu 条语句，第一条在第 %zu 行）：这些语句以 FP32 计算，不再把每个操作数转换为 FP64（在容差内：中间结果按 float 舍入）"),
    F(RW_FLIT_DESC_ONE_MANY, "kernel %s: %zu double literal in float arithmetic written as float (%zu statements, the first at line %zu): the statements compute in FP32 instead of converting every operand to FP64 (within tolerance: float rounding of the intermediates)",
      "核函数 %s：浮点运算中的 %zu 个 double 字面量改写为 float（%zu 条语句，第一条在第 %zu 行）：这些语句以 FP32 计算，不再把每个操作数转换为 FP64（在容差内：中间结果按 float 舍入）"),
    F(RW_FLIT_DESC_MANY_ONE, "kernel %s: %zu double literals in float arithmetic written as float (%zu statement, the first at line %zu): the statements compute in FP32 instead of converting every operand to FP64 (within tolerance: float rounding of the intermediates)",
      "核函数 %s：浮点运算中的 %zu 个 double 字面量改写为 float（%zu 条语句，第一条在第 %zu 行）：这些语句以 FP32 计算，不再把每个操作数转换为 FP64（在容差内：中间结果按 float 舍入）"),
    F(RW_FLIT_DESC_MANY_MANY, "kernel %s: %zu double literals in float arithmetic written as float (%zu statements, the first at line %zu): the statements compute in FP32 instead of converting every operand to FP64 (within tolerance: float rounding of the intermediates)",
      "核函数 %s：浮点运算中的 %zu 个 double 字面量改写为 float（%zu 条语句，第一条在第 %zu 行）：这些语句以 FP32 计算，不再把每个操作数转换为 FP64（在容差内：中间结果按 float 舍入）"),
    F(RW_FLIT_NONE, "kernel body at line %d: no double literal (`2.0`, unsuffixed) in float arithmetic stored to a float whose other operands are all float or integer",
      "核函数体（第 %d 行）：浮点运算中没有写入 float 且其余操作数都是 float 或整数的 double 字面量（`2.0`，无后缀）"),
    F(RW_LEX_BODY_EMPTY, "kernel body at line %d: the body is empty",
      "核函数体（第 %d 行）：函数体为空"),
    F(RW_LEX_MODEL, "kernel body at line %d: the kernel model cannot be built: %s",
      "核函数体（第 %d 行）：无法构建核函数模型：%s"),
    F(RW_LEX_NOT_CLEAN, "rewrite refused, its result does not parse cleanly: %s",
      "代码改写被拒绝，其结果无法被干净地解析：%s"),
    F(RW_POW_OWN_POW, "function at line %d: the file declares its own %s, so its calls are not the math library's",
      "函数（第 %d 行）：该文件自己声明了 %s，因此这些调用不是数学库的"),
    F(RW_POW_ALREADY, "function at line %d: the file already defines %s (it was rewritten so before)",
      "函数（第 %d 行）：该文件已经定义了 %s（之前已经这样改写过）"),
    F(RW_POW_ALL_LITERAL, "call at line %d: every pow/powf call in its body has a number literal as its exponent (the compiler folds those)",
      "调用（第 %d 行）：函数体中每个 pow/powf 调用的指数都是数字字面量（编译器会将其折叠）"),
    M(RW_POW_NONE, "no pow or powf call in its body",
      "函数体中没有 pow 或 powf 调用"),
    M(RW_ACCUM_NONE, "no innermost loop sums into memory (`P[I] += E;` or `-=` as the only use of P in the loop, I the same in every iteration, no return or goto)",
      "没有向内存累加的最内层循环（`P[I] += E;` 或 `-=` 是 P 在循环中唯一的使用，I 在每次迭代中相同，且没有 return 或 goto）"),
    F(RW_ACCUM_DESC, "kernel %s: %s summed in a register per loop and added to memory once after it (the compiler must otherwise load and store it on every iteration, since the loop's other pointers may alias it)",
      "核函数 %s：%s 在每个循环中先在寄存器里累加，循环结束后再一次性加回内存（否则编译器必须在每次迭代中读写它，因为循环中的其他指针可能与它别名）"),
    F(RW_TR_WRITTEN_BESIDES, "line %u: %s is written besides the transposed copy into %s",
      "第 %u 行：%s 在向 %s 写入转置副本之外还被写入"),
    F(RW_TR_GUARD_ELSE, "line %u: the write is not out[x * H + y] under the guards x < W, y < H (W = %s, H = %s): this guard bounds something else",
      "第 %u 行：写入不是守卫条件 x < W、y < H（W = %s，H = %s）下的 out[x * H + y]：该守卫限定的是别的量"),
    F(RW_TR_MODEL_READS, "the kernel model reads it as %s, not a transpose",
      "核函数模型将其识别为 %s，而不是转置"),
    F(RW_TR_ALREADY_SHARED, "line %u: it already transposes through a __shared__ tile",
      "第 %u 行：它已经通过 __shared__ 分块做转置"),
    F(RW_TR_NAMES_TOO_LONG, "line %u: the buffer names are too long",
      "第 %u 行：缓冲区名字太长"),
    F(RW_TR_MAPS, "line %u: the maps are not in[y * W + x] and out[x * H + y] with W and H parameters or named constants, x and y along two thread axes (or one of them the counter of a loop `for (v = 0; v < W or H; v++)`)",
      "第 %u 行：下标映射不是 in[y * W + x] 与 out[x * H + y]（W、H 为参数或具名常量，x、y 沿两个线程维度，或其中之一是循环 `for (v = 0; v < W or H; v++)` 的计数器）"),
    F(RW_TR_MAY_END, "line %d: a `%s` may end the loop over a coordinate early",
      "第 %d 行：`%s` 可能提前结束对某个坐标的循环"),
    F(RW_TR_BODY_LARGE_AT, "line %u: the body is far larger than a transpose",
      "第 %u 行：函数体远大于一个转置"),
    M(RW_TR_TYPES_DIFFER, "the input and output element types differ",
      "输入与输出的元素类型不同"),
    F(RW_TR_DESC, "kernel %s: shared-memory tiled transpose %s -> %s (%s x %s), tile [%d][%d + 1] (HK_TILE), grid-stride over tiles, any block shape",
      "核函数 %s：基于共享内存分块的转置 %s -> %s（%s x %s），分块 [%d][%d + 1]（HK_TILE），以网格跨步方式遍历分块，适用任意线程块形状"),
    F(RW_TR_NOT_POINTERS, "line %u: %s and %s are not two pointer parameters",
      "第 %u 行：%s 和 %s 不是两个指针参数"),
    M(RW_TR_BODY_LARGE, "the body is far larger than a transpose",
      "函数体远大于一个转置"),
    M(RW_TR_NOT_2D, "it is not a 2D kernel (indices from .x and .y)",
      "它不是二维核函数（索引来自 .x 和 .y）"),
    M(RW_TR_STMTS_BEFORE_CHECK, "statements besides the index declarations come before the bounds check",
      "边界检查之前除了索引声明还有其他语句"),
    M(RW_TR_NOT_ONE_COPY, "the guarded statement is not one copy `out[...] = in[...];` between two pointer parameters",
      "受守卫的语句不是两个指针参数之间的一次拷贝 `out[...] = in[...];`"),
    M(RW_TR_READ_NOT, "the read is not in[y * W + x] (y and x the .y and .x indices, W the bound of x)",
      "读取不是 in[y * W + x]（y、x 为 .y、.x 索引，W 为 x 的上界）"),
    M(RW_TR_COPY, "it is a copy, not a transpose",
      "它是拷贝，不是转置"),
    M(RW_TR_WRITE_NOT, "the write is not out[x * H + y] (H the bound of y)",
      "写入不是 out[x * H + y]（H 为 y 的上界）"),
    F(SRCH_NOT_SEARCHED, "%s not searched: %s",
      "%s 未被搜索：%s"),
    F(RW_DIV_AT, "division at line %d: %s",
      "除法（第 %d 行）：%s"),
    F(RW_DIV_NOT_INVARIANT, "the divisor `%s` is not invariant over the kernel: `%.*s` (line %d) is written there or passed to a call that may write it, or is not a parameter or a local set once from them before the loop",
      "除数 `%s` 在核函数中不是不变量：`%.*s`（第 %d 行）在那里被写入或被传给可能写入它的调用，或者它不是参数、也不是在循环之前由参数一次性赋值的局部变量"),
    F(RW_DIV_CONSTANT, "the divisor `%s` is a constant: the compiler already divides by its magic number",
      "除数 `%s` 是常量：编译器已经在用它的魔数做除法"),
    F(RW_DIV_64BIT, "64-bit arithmetic (the division by `%s` is in long or size_t): only 32-bit dividends are rewritten",
      "64 位运算（除以 `%s` 的运算是 long 或 size_t 类型）：只改写 32 位被除数"),
    F(RW_DIV_TYPES, "the operands' types are not 32-bit integer types the scan can read (divisor `%s`)",
      "操作数的类型不是扫描能识别的 32 位整数类型（除数 `%s`）"),
    F(RW_DIV_DIVIDEND_CAST, "the dividend `%.*s...` follows a cast, a unary operator or a template: its extent is not read",
      "被除数 `%.*s...` 前面是类型转换、一元运算符或模板：无法确定它的范围"),
    F(RW_DIV_DIVIDEND_INVARIANT, "the dividend `%.*s` is invariant too: the compiler computes the quotient once",
      "被除数 `%.*s` 也是不变量：编译器只会计算一次商"),
    F(RW_DIV_DIVIDEND_TYPE, "the dividend `%.*s` has no 32-bit integer type the scan can read",
      "被除数 `%.*s` 没有扫描能识别的 32 位整数类型"),
    F(RW_DIV_OUTSIDE_LOOPS, "the divisor `%.*s` is used outside loops only: one division per thread costs about what its setup does",
      "除数 `%.*s` 只在循环外使用：每个线程只做一次除法，开销与其准备工作相当"),
    F(RW_DIV_DIVIDEND_OPERAND, "the dividend before `%.*s` is not a plain operand the scan reads (a cast, a call's result, a unary operator or a member before it)",
      "`%.*s` 之前的被除数不是扫描能识别的普通操作数（前面有类型转换、调用结果、一元运算符或成员访问）"),
    F(RW_DIV_BRACES, "kernel body at line %d: its braces do not balance",
      "核函数体（第 %d 行）：花括号不配对"),
    F(RW_DIV_ALREADY, "division at line %d: the kernel divides by magic numbers already (hk_fdiv)",
      "除法（第 %d 行）：该核函数已经在用魔数做除法（hk_fdiv）"),
    F(RW_DIV_HELPERS, "kernel body at line %d: the file has fast_divmod's helpers already (another kernel's)",
      "核函数体（第 %d 行）：文件中已经有 fast_divmod 的辅助代码（属于另一个核函数）"),
    F(RW_DIV_GOTO, "goto at line %d: a jump could cross the divisors' setup",
      "goto（第 %d 行）：跳转可能越过除数的准备代码"),
    F(RW_DIV_PREPROC, "preprocessor conditional at line %d: the scan would read both branches as one",
      "预处理条件（第 %d 行）：扫描会把两个分支当成一段代码读取"),
    F(RW_DIV_NO_DIV, "kernel body at line %d: no `/` or `%%` in the kernel's text (one a macro hides is not read)",
      "核函数体（第 %d 行）：核函数文本中没有 `/` 或 `%%`（宏中隐藏的不会被读取）"),
    F(RW_DIV_NO_RUNTIME, "kernel body at line %d: no integer division by a runtime value",
      "核函数体（第 %d 行）：没有除以运行时值的整数除法"),
    F(RW_DIV_DESC, "kernel %s: %zu divisions and remainders by %s computed with magic numbers set up once per thread (a high multiply, an add and a shift; exact for every dividend)",
      "核函数 %s：%zu 次除以 %s 的除法与取余改用魔数计算，魔数每个线程只准备一次（一次高位乘法、一次加法和一次移位；对所有被除数都精确）"),
    F(RW_SPEC_LAUNCH_NOT_SAME, "the launch at line %u passes `%s`, not the same value as the others",
      "第 %u 行的启动传入的是 `%s`，与其他启动的值不同"),
    F(RW_SPEC_LAUNCH_NOT_LITERAL, "the launch at line %u passes `%s`, not a literal or a constant defined once",
      "第 %u 行的启动传入的是 `%s`，不是字面量，也不是只定义一次的常量"),
    M(RW_SPEC_FROM_SPEC, "the spec",
      "bench spec"),
    M(RW_SPEC_USE_LOOP_BOUND, "a loop bound",
      "循环边界"),
    M(RW_SPEC_USE_LOOP_COND, "a loop condition",
      "循环条件"),
    M(RW_SPEC_USE_BRANCH, "a branch",
      "分支"),
    F(RW_SPEC_PICK, "%s%s = %lld (%s; %s at line %d)",
      "%s%s = %lld（%s；%s，第 %d 行）"),
    M(RW_C_LABEL, "label",
      "标签"),
    M(RW_C_INLINE_ASM, "inline assembly",
      "内联汇编"),
    M(RW_C_STATIC_LOCAL, "static local",
      "静态局部变量"),
    M(RW_SPEC_NO_INT_VALUE, "the spec gives it no integer value",
      "bench spec 没有给它整数值"),
    F(RW_SPEC_NOT_LITERAL, "the spec's value `%s` is not a literal (a size is not specialized)",
      "bench spec 中的值 `%s` 不是字面量（尺寸不做特化）"),
    F(RW_SPEC_LAUNCH_FORM, "a launch at line %u passes its arguments in a form not read here",
      "第 %u 行的启动以此处无法读取的形式传参"),
    M(RW_SPEC_NO_SITE, "no spec and no launch site of the kernel in this text",
      "没有 bench spec，本文件中也没有该核函数的启动处"),
    M(RW_SPEC_FROM_SITES, "every launch site",
      "每个启动处"),
    F(RW_SPEC_NESTED_SHARED, "__shared__ array at line %u: `%s` is a static __shared__ array inside a nested block: a second copy of the body would declare a second one (twice the shared memory)",
      "__shared__ 数组（第 %u 行）：`%s` 是嵌套块中的静态 __shared__ 数组：函数体的第二份副本会再声明一个（共享内存翻倍）"),
    F(RW_SPEC_SHARED_ORDER, "__shared__ array at line %u: `%s` cannot move before the body's first statement: `%s` at line %d comes before it",
      "__shared__ 数组（第 %u 行）：`%s` 无法移到函数体第一条语句之前：`%s`（第 %d 行）在它之前"),
    M(RW_SPEC_LABEL, "a label has function scope: two copies of the body would define it twice",
      "标签的作用域是整个函数：函数体的两份副本会把它定义两次"),
    M(RW_SPEC_PTX, "two copies of inline PTX may define its labels twice",
      "两份内联 PTX 可能把其中的标签定义两次"),
    M(RW_SPEC_STATIC, "a static local would become two objects",
      "静态局部变量会变成两个对象"),
    F(RW_SPEC_BRACES, "kernel body at line %d: its braces do not balance",
      "核函数体（第 %d 行）：花括号不配对"),
    F(RW_SPEC_PARAM, "parameter at line %u: %s: %s",
      "参数（第 %u 行）：%s：%s"),
    F(RW_SPEC_PARAM_WRITTEN, "parameter at line %d: %s: the kernel writes it",
      "参数（第 %d 行）：%s：核函数会写入它"),
    F(RW_SPEC_PARAM_UNUSED, "parameter at line %d: %s: %s gives it %lld, but no loop bound, branch or divisor uses it",
      "参数（第 %d 行）：%s：%s 给它的值是 %lld，但没有循环边界、分支或除数用到它"),
    F(RW_SPEC_NO_PARAM, "parameter list at line %u: no integer scalar parameter that the body uses",
      "参数列表（第 %u 行）：函数体没有用到任何整数标量参数"),
    F(RW_SPEC_TOO_MANY_SHARED, "__shared__ array at line %u: more than %d static __shared__ arrays",
      "__shared__ 数组（第 %u 行）：静态 __shared__ 数组多于 %d 个"),
    F(RW_SPEC_SHARED_OUT_OF_ORDER, "__shared__ array at line %u: declarations out of order",
      "__shared__ 数组（第 %u 行）：声明顺序混乱"),
    F(RW_SPEC_DESC, "specialize_constants: %s become constants in a copy of the body taken when the launch passes these values; any other value runs the original",
      "specialize_constants：%s 在启动传入这些值时走函数体的一份副本并成为常量；其他取值运行原来的代码"),
    M(RW_MEM_EARLY_EXIT, "the per-element code has a return, goto, break or continue, which would leave the other lanes of a vector undone",
      "逐元素代码中有 return、goto、break 或 continue，会使向量中其余通道的元素没有被处理"),
    M(RW_MEM_NO_INDEX, "no `int i = blockIdx.x * blockDim.x + threadIdx.x;` (or a grid-stride loop over it) at the top level of the body, after plain declarations",
      "函数体顶层（在普通声明之后）没有 `int i = blockIdx.x * blockDim.x + threadIdx.x;`（也没有基于它的网格跨步循环）"),
    M(RW_MEM_GOTO_BEFORE_LOOP, "a statement before the loop has a goto or a label",
      "循环之前的语句中有 goto 或标签"),
    M(RW_MEM_STMT_USES_INDEX, "a statement between the index and its bounds check uses the index (a pointer offset or a value the bounds check does not guard): only declarations independent of it may come between",
      "索引与其边界检查之间的语句用到了索引（指针偏移，或边界检查未保护的值）：两者之间只能有与索引无关的声明"),
    F(RW_MEM_ADDRESS_TAKEN, "%s has its address taken or a member accessed",
      "%s 被取了地址或访问了成员"),
    M(RW_RED_NO_TREE, "no shared-memory tree (one __shared__ array) and no per-thread atomic",
      "没有基于共享内存的树形归约（一个 __shared__ 数组），也没有每线程一次的原子操作"),
    M(RW_RED_NOT_LOADED, "the shared array is not loaded with `sdata[tid] = i < n ? value : 0;` (block_reduce takes any)",
      "共享内存数组不是以 `sdata[tid] = i < n ? value : 0;` 的方式加载的（block_reduce 接受任意形式）"),
    F(RW_PERM_LOOP, "line %u: a loop: only one element per thread is tiled",
      "第 %u 行：一个循环：只有每线程一个元素的核函数才能分块"),
    F(RW_PERM_GATHER, "line %u: an index is read from memory (a gather or scatter through an index array, not a permutation of the coordinates)",
      "第 %u 行：索引是从内存读取的（通过索引数组的 gather 或 scatter，而不是坐标的排列）"),
    M(RW_RECOG_NO_INDEX_DECL, "the body does not start with an index declaration such as `int i = blockIdx.x * blockDim.x + threadIdx.x;`",
      "函数体不是以 `int i = blockIdx.x * blockDim.x + threadIdx.x;` 这样的索引声明开头"),
    M(RW_RECOG_STMTS_BEFORE_CHECK, "statements besides the index declaration come before the bounds check",
      "边界检查之前除了索引声明还有其他语句"),
    M(RW_RECOG_STMTS_BEFORE_CHECK2, "statements besides the index declarations come before the bounds check",
      "边界检查之前除了各索引声明还有其他语句"),
    M(RW_LN_BODY_LARGE, "the body is far larger than a layernorm",
      "函数体远大于一个 layernorm"),
    M(RW_LN_NO_MEAN_SUM, "the row body does not start with a sum for the mean `float mean = 0.0f;`",
      "行处理代码不是以求均值的累加 `float mean = 0.0f;` 开头"),
    M(RW_LN_FIRST_LOOP, "the first column loop is not the sum `mean += x[c]`",
      "第一个列循环不是求和 `mean += x[c]`"),
    M(RW_LN_MEAN_DIV, "the sum is not divided by the column count (`mean /= cols;`)",
      "累加和没有除以列数（`mean /= cols;`）"),
    M(RW_LN_NO_VAR_SUM, "no variance sum `float var = 0.0f;` after the mean",
      "均值之后没有方差累加 `float var = 0.0f;`"),
    M(RW_LN_SECOND_LOOP, "the second column loop is not `var += (x[c] - mean) * (x[c] - mean)`",
      "第二个列循环不是 `var += (x[c] - mean) * (x[c] - mean)`"),
    M(RW_LN_VAR_DIV, "the variance sum is not divided by the column count (`var /= cols;`)",
      "方差累加和没有除以列数（`var /= cols;`）"),
    M(RW_LN_NO_INV, "no `float inv = 1.0f / sqrtf(var + eps);` before the write loop",
      "写回循环之前没有 `float inv = 1.0f / sqrtf(var + eps);`"),
    M(RW_LN_INV_FORM, "the inverse deviation is not `1.0f / sqrtf(var + eps)` or `rsqrtf(var + eps)` with eps a parameter or a literal",
      "标准差倒数不是 `1.0f / sqrtf(var + eps)` 或 `rsqrtf(var + eps)`（eps 为参数或字面量）"),
    M(RW_LN_LAST_NOT_WRITE, "the last statement is not the write loop",
      "最后一条语句不是写回循环"),
    M(RW_LN_WRITE_FORM, "the write loop is not `y[c] = (x[c] - mean) * inv [* gamma[c]] [+ beta[c]]`",
      "写回循环不是 `y[c] = (x[c] - mean) * inv [* gamma[c]] [+ beta[c]]`"),
    M(RW_LN_GAMMA_TYPE, "gamma or beta is not float",
      "gamma 或 beta 不是 float"),
    F(RW_LN_DESC, "kernel %s: layernorm rows of %s -> %s%s%s%s%s with one warp per row, shuffle sums for mean and centred variance, float4 when cols %% 4 == 0",
      "核函数 %s：%s -> %s%s%s%s%s 的 layernorm 各行改为每行一个 warp，用 shuffle 求均值与中心化方差，cols %% 4 == 0 时使用 float4"),
    /* -- end of rewrites and search -- */
    /* ---- rewrites, session 35 ---- */
    /* rewrite_chunks.c (channel_chunks) */
    M(RW_NO_REASON, "no reason",
      "没有原因"),
    M(RW_C_CALL, "call",
      "函数调用"),
    M(RW_C_EARLY_EXIT, "early exit",
      "提前退出"),
    M(RW_C_FLOAT_SELECTION, "float selection",
      "浮点比较选择"),
    M(RW_C_LOAD, "load",
      "读取"),
    M(RW_C_LOOP_BODY, "loop body",
      "循环体"),
    M(RW_C_LOOP_NEST, "loop nest",
      "嵌套循环"),
    M(RW_C_MEMORY, "memory",
      "访存"),
    M(RW_C_STORE, "store",
      "写入"),
    M(RW_C_WRITE, "write",
      "写操作"),
    F(RW_CC_CHOSEN_HALF, "chunk %d chosen: %d per-element registers, about %d a thread at C_K %d, keeps half the SM's threads of %lld threads",
      "选择分块 %d：每个元素占 %d 个寄存器，每线程约 %d 个（C_K 为 %d 时），在每线程块 %lld 个线程下仍能保持 SM 一半的驻留线程"),
    F(RW_CC_CHOSEN_HALF_FILL, "chunk %d chosen: %d per-element registers, about %d a thread at C_K %d, keeps half the SM's threads of %lld threads; the chunks fill the GPU",
      "选择分块 %d：每个元素占 %d 个寄存器，每线程约 %d 个（C_K 为 %d 时），在每线程块 %lld 个线程下仍能保持 SM 一半的驻留线程；分块后仍能占满 GPU"),
    F(RW_CC_CHOSEN_FITS, "chunk %d chosen: %d per-element registers, about %d a thread at C_K %d, fits the block's register limit of %lld threads",
      "选择分块 %d：每个元素占 %d 个寄存器，每线程约 %d 个（C_K 为 %d 时），不超过 %lld 线程的线程块的寄存器上限"),
    F(RW_CC_CHOSEN_FITS_FILL, "chunk %d chosen: %d per-element registers, about %d a thread at C_K %d, fits the block's register limit of %lld threads; the chunks fill the GPU",
      "选择分块 %d：每个元素占 %d 个寄存器，每线程约 %d 个（C_K 为 %d 时），不超过 %lld 线程的线程块的寄存器上限；分块后仍能占满 GPU"),
    F(RW_CC_CHOSEN_SMALLEST, "chunk %d chosen: %d per-element registers, about %d a thread at C_K %d, the smallest of %lld threads",
      "选择分块 %d：每个元素占 %d 个寄存器，每线程约 %d 个（C_K 为 %d 时），线程块为 %lld 个线程，取最小分块"),
    F(RW_CC_CHOSEN_SMALLEST_FILL, "chunk %d chosen: %d per-element registers, about %d a thread at C_K %d, the smallest of %lld threads; the chunks fill the GPU",
      "选择分块 %d：每个元素占 %d 个寄存器，每线程约 %d 个（C_K 为 %d 时），线程块为 %lld 个线程，取最小分块；分块后仍能占满 GPU"),
    F(RW_CC_DESC_LOAD, "kernel %s: the grid-stride loop at line %d takes %d elements per trip that differ only in `%.*s` (c0 .. c0+%d), loads %zu value of its accumulation once for them and keeps %d accumulators (exact; a chunk whose guards differ runs the original body); the grid divided by %d along x",
      "核函数 %s：第 %d 行的网格跨步循环每次迭代处理 %d 个仅在 `%.*s` 上不同的元素（c0 .. c0+%d），其累加中的 %zu 个值只为它们读取一次，并使用 %d 个累加器（结果精确；保护条件不同的分块执行原函数体）；网格沿 x 方向除以 %d"),
    F(RW_CC_DESC_LOADS, "kernel %s: the grid-stride loop at line %d takes %d elements per trip that differ only in `%.*s` (c0 .. c0+%d), loads %zu values of its accumulation once for them and keeps %d accumulators (exact; a chunk whose guards differ runs the original body); the grid divided by %d along x",
      "核函数 %s：第 %d 行的网格跨步循环每次迭代处理 %d 个仅在 `%.*s` 上不同的元素（c0 .. c0+%d），其累加中的 %zu 个值只为它们读取一次，并使用 %d 个累加器（结果精确；保护条件不同的分块执行原函数体）；网格沿 x 方向除以 %d"),
    M(RW_C_BARRIER, "barrier",
      "同步屏障"),
    M(RW_C_COUNTER, "counter",
      "计数器"),
    M(RW_C_COORDINATE, "coordinate",
      "坐标"),
    M(RW_C_MACRO, "macro",
      "宏"),
    F(RW_CC_PTR_UNFOLLOWED, "`%.*s`: memory through a pointer the scan cannot follow",
      "`%.*s`：通过扫描无法跟踪的指针访问内存"),
    F(RW_CC_IN_ELEM_EXPR, "`%.*s` inside an expression of the element",
      "`%.*s` 出现在元素的表达式内部"),
    M(RW_CC_LOAD_OUTSIDE, "a load outside the accumulation",
      "累加之外有读取"),
    F(RW_CC_IN_ELEM_THREAD, "`%.*s` in the element: its value would depend on the thread",
      "元素中的 `%.*s`：其值会依赖于线程"),
    F(RW_CC_IN_ELEM_NOT_STORE, "`%.*s` in the element: not one plain store of one accumulator",
      "元素中的 `%.*s`：不是对单个累加器的一次普通写入"),
    F(RW_CC_IN_ELEM, "`%.*s` in the element",
      "元素中出现 `%.*s`"),
    F(RW_CC_NOT_PURE, "`%.*s(...)` is not a pure function of its arguments",
      "`%.*s(...)` 不是其参数的纯函数"),
    F(RW_CC_COUNTER_READ, "the counter `%.*s` is read other than as the coordinates and the store's subscript",
      "计数器 `%.*s` 除了用作坐标和写入的下标之外还被读取"),
    F(RW_CC_USED_NOT_LOAD, "`%.*s` is used other than as a load `%.*s[...]` of the accumulation",
      "`%.*s` 除了作为累加中的读取 `%.*s[...]` 之外还有其他用法"),
    F(RW_CC_ELEM_READS_WRITTEN, "the element reads `%.*s`, which the kernel writes",
      "元素读取了 `%.*s`，而核函数会写它"),
    F(RW_CC_TOO_MANY_BUFFERS, "more than %d buffers",
      "超过 %d 个缓冲区"),
    F(RW_CC_NOT_DECL, "`%.*s ...` is not a declaration `T name = value;`",
      "`%.*s ...` 不是声明 `T name = value;`"),
    M(RW_CC_MULTI_DECLARATOR, "more than one declarator in a statement",
      "一条语句中有多个声明符"),
    F(RW_CC_DECLARED_TWICE, "`%.*s` is declared twice (or hides a parameter)",
      "`%.*s` 被声明了两次（或遮蔽了某个参数）"),
    F(RW_CC_TOO_MANY_LOCALS, "more than %d locals",
      "超过 %d 个局部变量"),
    M(RW_CC_UNDELIMITED, "a statement the scan cannot delimit",
      "扫描无法确定一条语句的边界"),
    M(RW_CC_HEADER_WRITES, "the loop header writes other than its own counter",
      "循环头除了自身的计数器之外还写了其他变量"),
    F(RW_CC_BOUNDS_DEPEND, "the loop's bounds depend on `%.*s`: the chunk's elements would take other paths",
      "循环的边界依赖于 `%.*s`：分块中的各元素会走不同的路径"),
    M(RW_CC_IF_IN_NEST, "an `if` other than `if (cond) continue;` in the loop nest",
      "嵌套循环中有 `if (cond) continue;` 以外的 `if`"),
    F(RW_CC_CONTINUE_DEPENDS, "the `continue` condition depends on `%.*s`",
      "`continue` 的条件依赖于 `%.*s`"),
    F(RW_CC_SECOND_UPDATE, "a second update of `%.*s`",
      "`%.*s` 被第二次更新"),
    F(RW_CC_UPDATE_READS, "the update reads `%.*s`",
      "更新语句读取了 `%.*s`"),
    M(RW_CC_TOO_MANY_DECLS, "too many declarations",
      "声明过多"),
    F(RW_CC_NEST_ONLY, "`%.*s ...` in the loop nest: only loops, `if (...) continue;`, declarations and the update `acc += ...`",
      "嵌套循环中的 `%.*s ...`：只允许循环、`if (...) continue;`、声明和更新 `acc += ...`"),
    F(RW_CC_COUNTER_OUTSIDE_COORD, "`%.*s ...` reads the counter `%.*s` outside a coordinate's declaration `int c = %.*s / A %% C;`",
      "`%.*s ...` 读取了计数器 `%.*s`，但不是在坐标声明 `int c = %.*s / A %% C;` 中"),
    F(RW_CC_NOT_COORD, "`%.*s` is not a coordinate `%.*s / A %% B` of the counter",
      "`%.*s` 不是计数器的坐标 `%.*s / A %% B`"),
    F(RW_CC_COORD_OPS, "`%.*s` in the coordinate `%.*s`: only `/ F` then one `%% F`",
      "`%.*s` 出现在坐标 `%.*s` 中：只允许先 `/ F` 再一次 `%% F`"),
    F(RW_CC_FACTOR, "the factor `%.*s` is not an integer parameter the kernel keeps or a literal",
      "因子 `%.*s` 既不是核函数保持不变的整型参数，也不是字面量"),
    F(RW_CC_TOO_MANY_DIVS, "more than %d divisions",
      "超过 %d 次除法"),
    F(RW_CC_UNBALANCED, "unbalanced parentheses in `%.*s`",
      "`%.*s` 中的括号不配对"),
    F(RW_CC_NO_COORD_DIVIDES, "no coordinate divides the counter %zu times",
      "没有坐标将计数器除 %zu 次"),
    F(RW_CC_TWO_COORDS_DIVIDE, "two coordinates divide the counter %zu times",
      "有两个坐标将计数器除 %zu 次"),
    F(RW_CC_NOT_LAST_NO_MOD, "`%.*s` is not the last coordinate but takes no modulus",
      "`%.*s` 不是最后一个坐标，却没有取模"),
    F(RW_CC_LAST_MOD, "`%.*s` (the last coordinate) takes a modulus",
      "`%.*s`（最后一个坐标）取了模"),
    F(RW_CC_COORD_DIVISOR, "coordinate %zu divides by `%.*s`, not by the moduli of the coordinates before it, in order",
      "坐标 %zu 除以的是 `%.*s`，而不是依次除以它之前各坐标的模数"),
    M(RW_CC_NOT_SHAPE, "not coordinates, an accumulator, one loop nest and one store",
      "不是由坐标、一个累加器、一个嵌套循环和一次写入组成"),
    F(RW_CC_NO_FINAL_STORE, "the body does not end with one store `P[%.*s] = acc;`",
      "函数体不是以单次写入 `P[%.*s] = acc;` 结尾"),
    F(RW_CC_NAMES_AGAIN, "the kernel names `%.*s` again: it may read what a chunk wrote",
      "核函数再次用到 `%.*s`：它可能读到某个分块写入的值"),
    F(RW_CC_USED_OUTSIDE_LOOP, "`%.*s` is used outside the loop",
      "`%.*s` 在循环之外被使用"),
    M(RW_CC_BEFORE_STORE_NOT_LOOP, "the statement before the store is not a loop",
      "写入之前的语句不是循环"),
    F(RW_CC_STORED_NOT_DECLARED, "the stored `%.*s` is not declared just before the loop nest",
      "被写入的 `%.*s` 没有紧挨在嵌套循环之前声明"),
    F(RW_CC_ACC_START_DEPENDS, "the accumulator's start depends on `%.*s`",
      "累加器的初值依赖于 `%.*s`"),
    F(RW_CC_BEFORE_ACC_NOT_DECL, "`%.*s ...` before the accumulator is not a declaration",
      "累加器之前的 `%.*s ...` 不是声明"),
    F(RW_CC_NEVER_UPDATES, "the loop nest never updates `%.*s` with `+=`",
      "嵌套循环从未用 `+=` 更新 `%.*s`"),
    F(RW_CC_DECL_DEPENDS, "a declaration that depends on `%.*s` outside the update's block, or after it",
      "有依赖于 `%.*s` 的声明位于更新语句所在的块之外，或在它之后"),
    F(RW_CC_ELSEWHERE, "`%.*s` is read or written elsewhere",
      "`%.*s` 在其他地方被读或写"),
    F(RW_CC_TOO_MANY_SHARED_LOADS, "more than %d loads to share",
      "可共享的读取超过 %d 个"),
    F(RW_CC_ALL_LOADS_DEPEND, "every load of the update depends on `%.*s`: nothing for the chunk to share",
      "更新中的每个读取都依赖于 `%.*s`：分块没有可共享的读取"),
    F(RW_CC_LOOP_WRITES_READ, "the loop writes `%s`, which it reads",
      "循环写入了它所读取的 `%s`"),
    F(RW_CC_LAUNCH_ALIAS, "the launch at line %u passes `%s` as both %s and %s",
      "第 %u 行的启动把 `%s` 同时作为 %s 和 %s 传入"),
    F(RW_CC_WRITES_NOT_LOCAL, "`%.*s` writes other than a local of the element at the start of a statement",
      "`%.*s` 写入的不是位于语句开头的元素局部变量"),
    F(RW_CC_STORE_PTR_USE, "the store pointer `%.*s` is used other than in `*%.*s = v;` and `%.*s += e;`",
      "写入指针 `%.*s` 除了 `*%.*s = v;` 和 `%.*s += e;` 之外还有其他用法"),
    F(RW_CC_TEMPLATE_CALL, "`%.*s<...>(...)`: a call with template arguments (only `%.*s<...>(args);` whose results are reference parameters is read)",
      "`%.*s<...>(...)`：带模板实参的调用（只读取结果为引用参数的 `%.*s<...>(args);`）"),
    F(RW_CC_NOT_PURE_INLINE, "`%.*s(...)` is not a pure function of its arguments (a call to a function of the file is inlined only as `T v = f(...);`)",
      "`%.*s(...)` 不是其参数的纯函数（本文件中的函数只有以 `T v = f(...);` 形式调用时才会内联）"),
    F(RW_CC_ELEM_NAMES_STORED, "the element names `%.*s`, which it stores to, other than in `%.*s[%.*s] = ...`",
      "元素用到了它写入的 `%.*s`，且不是在 `%.*s[%.*s] = ...` 中"),
    F(RW_CC_ELEM_READS_WRITTEN_AT, "the element reads `%.*s`, which the kernel writes (or passes on) at line %d",
      "元素读取了 `%.*s`，而核函数在第 %d 行写入（或传出）了它"),
    F(RW_CC_ELEM_WRITES_PARAM, "the element writes the parameter `%.*s`",
      "元素写入了参数 `%.*s`"),
    F(RW_CC_RETURNS_OTHER, "`%.*s` returns other than by `return e;` or `if (c) return e;` at its top level",
      "`%.*s` 在顶层除了 `return e;` 或 `if (c) return e;` 之外还有其他返回方式"),
    F(RW_CC_IF_MORE_THAN_RETURN, "`%.*s`: an `if` with more than `return e;`",
      "`%.*s`：`if` 中不只有 `return e;`"),
    F(RW_CC_NO_END_RETURN, "`%.*s` does not end with `return e;`",
      "`%.*s` 不是以 `return e;` 结尾"),
    F(RW_CC_TOO_MANY_INLINE, "more than %d calls to inline",
      "需要内联的调用超过 %d 个"),
    F(RW_CC_BODY_UNREADABLE, "`%.*s`'s body cannot be read",
      "无法读取 `%.*s` 的函数体"),
    F(RW_CC_ARGS_UNREADABLE, "`%.*s(...)`: an argument list the scan cannot read",
      "`%.*s(...)`：扫描无法读取的实参列表"),
    F(RW_CC_ARG_COUNT, "`%.*s(...)` passes %zu arguments to %zu parameters (defaults are not read)",
      "`%.*s(...)` 把 %zu 个实参传给 %zu 个形参（不读取默认参数）"),
    F(RW_CC_TEMPLATE_NOT_TYPE, "`%.*s` has a template parameter that is not a type",
      "`%.*s` 有一个不是类型的模板参数"),
    F(RW_CC_TEMPLATE_NOT_DEDUCED, "`%.*s`'s template parameter `%s` is not deduced from a declared argument",
      "`%.*s` 的模板参数 `%s` 无法从已声明的实参推导出来"),
    F(RW_CC_BY_REFERENCE, "`%.*s` takes a parameter by reference (or unnamed)",
      "`%.*s` 有按引用传递（或未命名）的参数"),
    F(RW_CC_NO_VALUE, "`%.*s` returns no value",
      "`%.*s` 不返回值"),
    M(RW_CC_TOO_MANY_STMTS, "too many statements",
      "语句过多"),
    F(RW_CC_BODY_UNDELIMITED, "`%.*s`'s body: a statement the scan cannot delimit",
      "`%.*s` 的函数体：扫描无法确定一条语句的边界"),
    F(RW_CC_TOO_MANY_ARGS, "`%.*s(...)` has more than 16 arguments",
      "`%.*s(...)` 的实参超过 16 个"),
    F(RW_CC_NO_DEFINITION, "`%.*s(...)`: a definition without a body or with another number of parameters",
      "`%.*s(...)`：定义没有函数体，或参数个数不同"),
    F(RW_CC_PTR_OR_RVALUE_REF, "`%.*s(...)` takes a pointer or an rvalue by reference",
      "`%.*s(...)` 接受指针或右值引用参数"),
    F(RW_CC_PTR_WRITABLE, "`%.*s(...)` takes a pointer to memory it may write (`%s`)",
      "`%.*s(...)` 接受指向其可能写入的内存的指针（`%s`）"),
    F(RW_CC_DEFS_DIFFER, "the definitions of `%.*s` pass parameter %zu differently",
      "`%.*s` 的各个定义以不同方式传递参数 %zu"),
    F(RW_CC_WRITES_OR_THREAD, "`%.*s(...)` writes other than its reference parameters, or depends on the thread",
      "`%.*s(...)` 除了引用参数之外还写了其他内存，或依赖于线程"),
    F(RW_CC_WRITES_ARG, "`%.*s(...)` writes its argument %zu, which is not a local of the element",
      "`%.*s(...)` 写入了它的第 %zu 个实参，而该实参不是元素的局部变量"),
    F(RW_CC_STORE_THROUGH, "the element stores through `%s`, which is not `P + e` of a pointer parameter P",
      "元素通过 `%s` 写入，而它不是指针参数 P 的 `P + e`"),
    M(RW_CC_TOO_MANY_STORED, "more than 8 stored buffers",
      "被写入的缓冲区超过 8 个"),
    M(RW_CC_FOR_UNREADABLE, "a `for` header the scan cannot read",
      "扫描无法读取的 `for` 循环头"),
    M(RW_CC_FOR_DECL, "a `for` header that declares other than `T v = e`",
      "`for` 循环头中声明了 `T v = e` 以外的内容"),
    M(RW_CC_FOR_MULTI_DECL, "a `for` header with more than one declarator",
      "`for` 循环头中有多个声明符"),
    F(RW_CC_DECL_UNREADABLE, "`%.*s ...`: a declaration the scan cannot read",
      "`%.*s ...`：扫描无法读取的声明"),
    F(RW_CC_IN_ELEM_DECL, "`%.*s` in a declaration of the element",
      "元素的声明中出现 `%.*s`"),
    M(RW_CC_DECLARATOR_FORM, "a declarator other than `name = value` or `name`",
      "声明符不是 `name = value` 或 `name` 形式"),
    F(RW_CC_NAMED_DECLARATOR_FORM, "`%.*s`: a declarator other than `name = value` or `name`",
      "`%.*s`：声明符不是 `name = value` 或 `name` 形式"),
    F(RW_CC_STORE_PTR_USE_S, "the store pointer `%s` is used other than in `*%s = v;` and `%s += e;`",
      "写入指针 `%s` 除了 `*%s = v;` 和 `%s += e;` 之外还有其他用法"),
    M(RW_CC_BREAK, "`break` out of the element's loop",
      "`break` 跳出了元素所在的循环"),
    F(RW_CC_UNDER_CONDITION, "`%.*s` under a condition that depends on `%.*s`",
      "`%.*s` 位于依赖 `%.*s` 的条件之下"),
    F(RW_CC_NOT_DISTINCT, "the coordinates and the counter are not %zu distinct names",
      "坐标与计数器不是 %zu 个互不相同的名字"),
    F(RW_CC_FLOAT_SELECT, "the element selects `%s` by comparing floats (line %d) and computes a float per element by a product and a sum, which nvcc may contract otherwise in the chunk's code: an ulp would select another value",
      "元素通过比较浮点数选择 `%s`（第 %d 行），并通过一次乘法和一次加法为每个元素计算一个浮点数，nvcc 在分块后的代码中可能以不同方式收缩（FMA）：1 个 ulp 的差异就会选中另一个值"),
    F(RW_CC_STORES_NOTHING, "the element stores nothing at `P[%.*s]`",
      "元素没有在 `P[%.*s]` 处写入"),
    F(RW_CC_STORE_PTR_INDEPENDENT, "the store pointer `%s` does not depend on `%.*s`: the chunk's elements would store to one address",
      "写入指针 `%s` 不依赖于 `%.*s`：分块中的各元素会写入同一地址"),
    F(RW_CC_ALL_ELEM_LOADS_DEPEND, "every load of the element depends on `%.*s`: nothing for the chunk to share",
      "元素的每个读取都依赖于 `%.*s`：分块没有可共享的读取"),
    F(RW_CC_NAMES_OTHER, "the kernel names `%.*s` other than in `%.*s[%.*s] = ...;` (or a store pointer's `T *p = %.*s + e;`)",
      "核函数用到 `%.*s` 的地方不只是 `%.*s[%.*s] = ...;`（或写入指针的 `T *p = %.*s + e;`）"),
    F(RW_CC_LOCKSTEP_UNWRITTEN, "the lockstep form could not be written (%d)",
      "无法写出锁步形式（%d）"),
    M(RW_CC_CHUNKED_ALREADY, "the kernel is chunked already (this rewrite's hk_cc_ names)",
      "核函数已经分块过了（有本代码改写的 hk_cc_ 名字）"),
    F(RW_CC_NEXT_LOOP, "%.400s; the next loop: %.280s",
      "%.400s；下一个循环：%.280s"),
    F(RW_CC_OTHER_COUNTS, "`%.*s` in the element: the chunks would run other numbers of them",
      "元素中的 `%.*s`：各分块执行它的次数会不同"),
    F(RW_CC_MACRO, "`%.*s` is a macro of the file: the scan cannot see what it reads",
      "`%.*s` 是本文件中的宏：扫描看不到它读取了什么"),
    F(RW_CC_TOO_MANY_COORDS, "more than %d coordinates",
      "超过 %d 个坐标"),
    M(RW_CC_NO_COORDS, "the body does not start with the counter's coordinates `i % A`, `i / A % B`, ..., the last `i / A / B ...` (at least two)",
      "函数体不是以计数器的坐标 `i % A`、`i / A % B`、...、最后的 `i / A / B ...`（至少两个）开头"),
    F(RW_CC_WRITES_COORD, "the body writes the coordinate `%.*s`",
      "函数体写入了坐标 `%.*s`"),
    F(RW_CC_FEW_COORDS, "%zu coordinates: the accumulation form needs three or more",
      "%zu 个坐标：累加形式需要三个或更多"),
    F(RW_CC_LOCKSTEP_WHY, "%.400s; the lockstep form: %.270s",
      "%.400s；锁步形式：%.270s"),
    F(RW_CC_DESC_LOCKSTEP, "kernel %s: the grid-stride loop at line %d takes %d elements per trip that differ only in `%.*s` (c0 .. c0+%d) in lockstep: what does not depend on `%.*s` (its loads, positions, weights; calls inlined) runs once for them, the rest per element (exact); the grid divided by %d along x",
      "核函数 %s：第 %d 行的网格跨步循环每次迭代以锁步方式处理 %d 个仅在 `%.*s` 上不同的元素（c0 .. c0+%d）：不依赖 `%.*s` 的部分（其读取、位置、权重；调用已内联）只为它们执行一次，其余部分逐元素执行（结果精确）；网格沿 x 方向除以 %d"),
    /* rewrite_rows.c (warp_rows) */
    F(RW_ROWS_L0_IN_COLUMN_LOOP, "`%s[%.100s]`, stored by lane 0 at line %u, is accessed at line %u by a column loop, which every lane runs (only lane 0 may read back what lane 0 stores)",
      "`%s[%.100s]`（由 lane 0 在第 %u 行写入）在第 %u 行被列循环访问，而列循环由每个 lane 执行（只有 lane 0 可以读回 lane 0 写入的值）"),
    F(RW_ROWS_L0_IN_ROW_STMT, "`%s[%.100s]`, stored by lane 0 at line %u, is accessed at line %u by a row-level statement, which every lane runs (only lane 0 may read back what lane 0 stores)",
      "`%s[%.100s]`（由 lane 0 在第 %u 行写入）在第 %u 行被行级语句访问，而行级语句由每个 lane 执行（只有 lane 0 可以读回 lane 0 写入的值）"),
    F(RW_ROWS_L0_NOT_SUBSCRIPT, "`%s[%.100s]`, stored by lane 0 at line %u, is used at line %u other than by subscript",
      "`%s[%.100s]`（由 lane 0 在第 %u 行写入）在第 %u 行以下标以外的方式被使用"),
    F(RW_ROWS_L0_OTHER_INDEX, "`%s[%.100s]`, stored by lane 0 at line %u, is accessed at another index `%.60s` at line %u (another row's element)",
      "`%s[%.100s]`（由 lane 0 在第 %u 行写入）以另一个下标 `%.60s` 在第 %u 行被访问（另一行的元素）"),
    F(RW_ROWS_L0_INDEX_READS, "`%s[%.100s]`, stored by lane 0 at line %u, is read back at line %u through an index that reads memory or calls `%s`",
      "`%s[%.100s]`（由 lane 0 在第 %u 行写入）在第 %u 行通过一个读内存或调用 `%s` 的下标被读回"),
    F(RW_ROWS_L0_INDEX_CHANGES, "`%s[%.100s]`, stored by lane 0 at line %u, is read back at line %u through an index naming `%s`, which the row body changes at line %u",
      "`%s[%.100s]`（由 lane 0 在第 %u 行写入）在第 %u 行通过含 `%s` 的下标被读回，而行处理代码在第 %u 行修改了它"),
    M(RW_ROWS_SHARES_SCALAR, "it shares memory with another column loop (the same index: every lane must own the same columns in both), and another of them stays scalar",
      "它与另一个列循环访问同一内存（下标相同：每个 lane 在两个循环中必须负责相同的列），而且其中另一个循环保持标量"),
    M(RW_ROWS_SHARES_BOUNDS, "it shares memory with another column loop (the same index: every lane must own the same columns in both), and their bounds differ",
      "它与另一个列循环访问同一内存（下标相同：每个 lane 在两个循环中必须负责相同的列），而且它们的边界不同"),
    M(RW_ROWS_SHARES_CHANGES, "it shares memory with another column loop (the same index: every lane must own the same columns in both), and a name in their bases or bound changes in the row body",
      "它与另一个列循环访问同一内存（下标相同：每个 lane 在两个循环中必须负责相同的列），而且它们的基址或边界中的某个名字在行处理代码中被修改"),
    M(RW_ROWS_SHARES_DECLARED_AFTER, "it shares memory with another column loop (the same index: every lane must own the same columns in both), and a name in their bases or bound is declared after the first of them",
      "它与另一个列循环访问同一内存（下标相同：每个 lane 在两个循环中必须负责相同的列），而且它们的基址或边界中的某个名字在其中第一个循环之后才声明"),
    F(RW_ROWS_AND_SUMMED, "%s (and with %.200s summed in a register: %.300s)",
      "%s（即使 %.200s 在寄存器中累加：%.300s）"),
    F(RW_ROWS_FLOAT4_IN_LOOP, "; float4 loads/stores in %zu of %zu column loop (16-byte aligned rows, scalar tail and fallback)",
      "；%zu / %zu 个列循环使用 float4 读写（行按 16 字节对齐，尾部与回退用标量）"),
    F(RW_ROWS_FLOAT4_IN_LOOPS, "; float4 loads/stores in %zu of %zu column loops (16-byte aligned rows, scalar tail and fallback)",
      "；%zu / %zu 个列循环使用 float4 读写（行按 16 字节对齐，尾部与回退用标量）"),
    F(RW_ROWS_SCALAR_ONLY, "; column loop %zu scalar only: %s",
      "；列循环 %zu 只用标量：%s"),
    F(RW_ROWS_DESC_WARP_111, "kernel %s: one warp per row `%s` instead of one thread (rows grid-strided over the warps), %zu column loop over the lanes, %zu warp reduction by __shfl_xor_sync, %zu lane-0 store%s",
      "核函数 %s：每行 `%s` 改由一个 warp 处理，而不是一个线程（各行以网格跨步方式分配给各 warp），%zu 个列循环由 warp 的各 lane 分担，%zu 次用 __shfl_xor_sync 的 warp 归约，%zu 处写入由 lane 0 完成%s"),
    F(RW_ROWS_DESC_WARP_11N, "kernel %s: one warp per row `%s` instead of one thread (rows grid-strided over the warps), %zu column loop over the lanes, %zu warp reduction by __shfl_xor_sync, %zu lane-0 stores%s",
      "核函数 %s：每行 `%s` 改由一个 warp 处理，而不是一个线程（各行以网格跨步方式分配给各 warp），%zu 个列循环由 warp 的各 lane 分担，%zu 次用 __shfl_xor_sync 的 warp 归约，%zu 处写入由 lane 0 完成%s"),
    F(RW_ROWS_DESC_WARP_1N1, "kernel %s: one warp per row `%s` instead of one thread (rows grid-strided over the warps), %zu column loop over the lanes, %zu warp reductions by __shfl_xor_sync, %zu lane-0 store%s",
      "核函数 %s：每行 `%s` 改由一个 warp 处理，而不是一个线程（各行以网格跨步方式分配给各 warp），%zu 个列循环由 warp 的各 lane 分担，%zu 次用 __shfl_xor_sync 的 warp 归约，%zu 处写入由 lane 0 完成%s"),
    F(RW_ROWS_DESC_WARP_1NN, "kernel %s: one warp per row `%s` instead of one thread (rows grid-strided over the warps), %zu column loop over the lanes, %zu warp reductions by __shfl_xor_sync, %zu lane-0 stores%s",
      "核函数 %s：每行 `%s` 改由一个 warp 处理，而不是一个线程（各行以网格跨步方式分配给各 warp），%zu 个列循环由 warp 的各 lane 分担，%zu 次用 __shfl_xor_sync 的 warp 归约，%zu 处写入由 lane 0 完成%s"),
    F(RW_ROWS_DESC_WARP_N11, "kernel %s: one warp per row `%s` instead of one thread (rows grid-strided over the warps), %zu column loops over the lanes, %zu warp reduction by __shfl_xor_sync, %zu lane-0 store%s",
      "核函数 %s：每行 `%s` 改由一个 warp 处理，而不是一个线程（各行以网格跨步方式分配给各 warp），%zu 个列循环由 warp 的各 lane 分担，%zu 次用 __shfl_xor_sync 的 warp 归约，%zu 处写入由 lane 0 完成%s"),
    F(RW_ROWS_DESC_WARP_N1N, "kernel %s: one warp per row `%s` instead of one thread (rows grid-strided over the warps), %zu column loops over the lanes, %zu warp reduction by __shfl_xor_sync, %zu lane-0 stores%s",
      "核函数 %s：每行 `%s` 改由一个 warp 处理，而不是一个线程（各行以网格跨步方式分配给各 warp），%zu 个列循环由 warp 的各 lane 分担，%zu 次用 __shfl_xor_sync 的 warp 归约，%zu 处写入由 lane 0 完成%s"),
    F(RW_ROWS_DESC_WARP_NN1, "kernel %s: one warp per row `%s` instead of one thread (rows grid-strided over the warps), %zu column loops over the lanes, %zu warp reductions by __shfl_xor_sync, %zu lane-0 store%s",
      "核函数 %s：每行 `%s` 改由一个 warp 处理，而不是一个线程（各行以网格跨步方式分配给各 warp），%zu 个列循环由 warp 的各 lane 分担，%zu 次用 __shfl_xor_sync 的 warp 归约，%zu 处写入由 lane 0 完成%s"),
    F(RW_ROWS_DESC_WARP_NNN, "kernel %s: one warp per row `%s` instead of one thread (rows grid-strided over the warps), %zu column loops over the lanes, %zu warp reductions by __shfl_xor_sync, %zu lane-0 stores%s",
      "核函数 %s：每行 `%s` 改由一个 warp 处理，而不是一个线程（各行以网格跨步方式分配给各 warp），%zu 个列循环由 warp 的各 lane 分担，%zu 次用 __shfl_xor_sync 的 warp 归约，%zu 处写入由 lane 0 完成%s"),
    F(RW_ROWS_DESC_BLOCK_111, "kernel %s: one block per row `%s` instead of one thread (rows grid-strided over the blocks; written for blocks of %u threads, correct for any), %zu column loop over the block's threads, %zu block reduction (__shfl_xor_sync in each warp, then one __shared__ slot per warp between two __syncthreads), %zu thread-0 store%s",
      "核函数 %s：每行 `%s` 改由一个线程块处理，而不是一个线程（各行以网格跨步方式分配给线程块；按 %u 个线程的线程块编写，任意线程块大小都正确），%zu 个列循环由线程块内的线程分担，%zu 次线程块归约（先在每个 warp 内用 __shfl_xor_sync，再在两次 __syncthreads 之间通过每个 warp 一个 __shared__ 槽位合并），%zu 处写入由线程 0 完成%s"),
    F(RW_ROWS_DESC_BLOCK_11N, "kernel %s: one block per row `%s` instead of one thread (rows grid-strided over the blocks; written for blocks of %u threads, correct for any), %zu column loop over the block's threads, %zu block reduction (__shfl_xor_sync in each warp, then one __shared__ slot per warp between two __syncthreads), %zu thread-0 stores%s",
      "核函数 %s：每行 `%s` 改由一个线程块处理，而不是一个线程（各行以网格跨步方式分配给线程块；按 %u 个线程的线程块编写，任意线程块大小都正确），%zu 个列循环由线程块内的线程分担，%zu 次线程块归约（先在每个 warp 内用 __shfl_xor_sync，再在两次 __syncthreads 之间通过每个 warp 一个 __shared__ 槽位合并），%zu 处写入由线程 0 完成%s"),
    F(RW_ROWS_DESC_BLOCK_1N1, "kernel %s: one block per row `%s` instead of one thread (rows grid-strided over the blocks; written for blocks of %u threads, correct for any), %zu column loop over the block's threads, %zu block reductions (__shfl_xor_sync in each warp, then one __shared__ slot per warp between two __syncthreads), %zu thread-0 store%s",
      "核函数 %s：每行 `%s` 改由一个线程块处理，而不是一个线程（各行以网格跨步方式分配给线程块；按 %u 个线程的线程块编写，任意线程块大小都正确），%zu 个列循环由线程块内的线程分担，%zu 次线程块归约（先在每个 warp 内用 __shfl_xor_sync，再在两次 __syncthreads 之间通过每个 warp 一个 __shared__ 槽位合并），%zu 处写入由线程 0 完成%s"),
    F(RW_ROWS_DESC_BLOCK_1NN, "kernel %s: one block per row `%s` instead of one thread (rows grid-strided over the blocks; written for blocks of %u threads, correct for any), %zu column loop over the block's threads, %zu block reductions (__shfl_xor_sync in each warp, then one __shared__ slot per warp between two __syncthreads), %zu thread-0 stores%s",
      "核函数 %s：每行 `%s` 改由一个线程块处理，而不是一个线程（各行以网格跨步方式分配给线程块；按 %u 个线程的线程块编写，任意线程块大小都正确），%zu 个列循环由线程块内的线程分担，%zu 次线程块归约（先在每个 warp 内用 __shfl_xor_sync，再在两次 __syncthreads 之间通过每个 warp 一个 __shared__ 槽位合并），%zu 处写入由线程 0 完成%s"),
    F(RW_ROWS_DESC_BLOCK_N11, "kernel %s: one block per row `%s` instead of one thread (rows grid-strided over the blocks; written for blocks of %u threads, correct for any), %zu column loops over the block's threads, %zu block reduction (__shfl_xor_sync in each warp, then one __shared__ slot per warp between two __syncthreads), %zu thread-0 store%s",
      "核函数 %s：每行 `%s` 改由一个线程块处理，而不是一个线程（各行以网格跨步方式分配给线程块；按 %u 个线程的线程块编写，任意线程块大小都正确），%zu 个列循环由线程块内的线程分担，%zu 次线程块归约（先在每个 warp 内用 __shfl_xor_sync，再在两次 __syncthreads 之间通过每个 warp 一个 __shared__ 槽位合并），%zu 处写入由线程 0 完成%s"),
    F(RW_ROWS_DESC_BLOCK_N1N, "kernel %s: one block per row `%s` instead of one thread (rows grid-strided over the blocks; written for blocks of %u threads, correct for any), %zu column loops over the block's threads, %zu block reduction (__shfl_xor_sync in each warp, then one __shared__ slot per warp between two __syncthreads), %zu thread-0 stores%s",
      "核函数 %s：每行 `%s` 改由一个线程块处理，而不是一个线程（各行以网格跨步方式分配给线程块；按 %u 个线程的线程块编写，任意线程块大小都正确），%zu 个列循环由线程块内的线程分担，%zu 次线程块归约（先在每个 warp 内用 __shfl_xor_sync，再在两次 __syncthreads 之间通过每个 warp 一个 __shared__ 槽位合并），%zu 处写入由线程 0 完成%s"),
    F(RW_ROWS_DESC_BLOCK_NN1, "kernel %s: one block per row `%s` instead of one thread (rows grid-strided over the blocks; written for blocks of %u threads, correct for any), %zu column loops over the block's threads, %zu block reductions (__shfl_xor_sync in each warp, then one __shared__ slot per warp between two __syncthreads), %zu thread-0 store%s",
      "核函数 %s：每行 `%s` 改由一个线程块处理，而不是一个线程（各行以网格跨步方式分配给线程块；按 %u 个线程的线程块编写，任意线程块大小都正确），%zu 个列循环由线程块内的线程分担，%zu 次线程块归约（先在每个 warp 内用 __shfl_xor_sync，再在两次 __syncthreads 之间通过每个 warp 一个 __shared__ 槽位合并），%zu 处写入由线程 0 完成%s"),
    F(RW_ROWS_DESC_BLOCK_NNN, "kernel %s: one block per row `%s` instead of one thread (rows grid-strided over the blocks; written for blocks of %u threads, correct for any), %zu column loops over the block's threads, %zu block reductions (__shfl_xor_sync in each warp, then one __shared__ slot per warp between two __syncthreads), %zu thread-0 stores%s",
      "核函数 %s：每行 `%s` 改由一个线程块处理，而不是一个线程（各行以网格跨步方式分配给线程块；按 %u 个线程的线程块编写，任意线程块大小都正确），%zu 个列循环由线程块内的线程分担，%zu 次线程块归约（先在每个 warp 内用 __shfl_xor_sync，再在两次 __syncthreads 之间通过每个 warp 一个 __shared__ 槽位合并），%zu 处写入由线程 0 完成%s"),
    F(RW_ROWS_REREAD_BLOCK, "%s; thread 0 alone reads back %s after storing it (after its loop's block combine)",
      "%s；%s 写入后只由线程 0 读回（在其循环的线程块合并之后）"),
    F(RW_ROWS_REREAD_WARP, "%s; lane 0 alone reads back %s after storing it (after its loop's warp combine)",
      "%s；%s 写入后只由 lane 0 读回（在其循环的 warp 合并之后）"),
    F(RW_ROWS_NOT_APPLICABLE_T, "warp_rows (row_threads %u) not applicable to kernel %s: %s",
      "warp_rows（row_threads %u）不适用于核函数 %s：%s"),
    M(RW_ROWS_SYNCTHREADS, "it synchronizes the block (__syncthreads)",
      "它会同步整个线程块（__syncthreads）"),
    M(RW_ROWS_SYNCWARP, "it synchronizes the warp (__syncwarp)",
      "它会同步 warp（__syncwarp）"),
    M(RW_ROWS_SHARED, "it uses shared memory",
      "它使用了共享内存"),
    M(RW_ROWS_ASM, "it holds inline assembly",
      "它含有内联汇编"),
    M(RW_ROWS_GOTO, "it uses goto",
      "它使用了 goto"),
    M(RW_ROWS_BREAK, "it breaks out of a loop",
      "它会 break 跳出循环"),
    M(RW_ROWS_SWITCH, "it holds a switch",
      "它含有 switch"),
    M(RW_ROWS_WHILE, "it holds a while loop",
      "它含有 while 循环"),
    M(RW_ROWS_DO, "it holds a do loop",
      "它含有 do 循环"),
    M(RW_ROWS_STATIC, "it declares a static variable",
      "它声明了 static 变量"),
    M(RW_ROWS_EXTERN, "it declares an extern variable",
      "它声明了 extern 变量"),
    M(RW_ROWS_GRIDDIM, "the row body uses gridDim",
      "行处理代码用到了 gridDim"),
    M(RW_ROWS_WARPSIZE, "the body already works per warp (warpSize)",
      "函数体已经按 warp 工作（warpSize）"),
    M(RW_ROWS_COOP, "it uses cooperative groups",
      "它使用了 cooperative groups"),
    M(RW_ROWS_ATOMICS, "it uses atomics (another thread shares the location)",
      "它使用了原子操作（另一个线程共享同一地址）"),
    M(RW_ROWS_SHUFFLES, "it already shuffles across lanes",
      "它已经在 lane 之间做 shuffle"),
    M(RW_ROWS_VOTES, "it already votes across lanes",
      "它已经在 lane 之间做投票（vote）"),
    M(RW_ROWS_PER_WARP, "it already works per warp",
      "它已经按 warp 工作"),
    M(RW_ROWS_REDUCES, "it already reduces across lanes",
      "它已经在 lane 之间做归约"),
    M(RW_ROWS_MATCHES, "it already matches across lanes",
      "它已经在 lane 之间做 match"),
    M(RW_ROWS_THREADFENCE, "it orders memory between threads (__threadfence)",
      "它在线程之间对内存访问排序（__threadfence）"),
    M(RW_ROWS_THREAD_BUILTINS, "the body uses threadIdx/blockIdx/blockDim besides the row index",
      "函数体除了行索引之外还用到了 threadIdx/blockIdx/blockDim"),
    M(RW_ROWS_TOO_MANY_NAMES, "the row body declares more names than the rewrite tracks",
      "行处理代码声明的名字超过了本代码改写能跟踪的数量"),
    M(RW_ROWS_TOO_MANY_STORES, "the row body stores to more places than the rewrite tracks",
      "行处理代码写入的位置超过了本代码改写能跟踪的数量"),
    F(RW_ROWS_REDUCED_NOT_VAR, "`%s` is reduced in a column loop but is not a variable declared before it in the kernel",
      "`%s` 在列循环中被归约，但它不是核函数中在该循环之前声明的变量"),
    F(RW_ROWS_ACC_NOT_SHUFFLE, "the accumulator `%s` is not a scalar type a warp shuffle takes",
      "累加器 `%s` 不是 warp shuffle 支持的标量类型"),
    F(RW_ROWS_ACC_IN_CHECK, "the accumulator `%s` is also read by the bounds check",
      "累加器 `%s` 也被边界检查读取"),
    F(RW_ROWS_ACC_NOT_ZERO, "the accumulator `%s` does not start at zero (its declaration has a non-zero or no initializer)",
      "累加器 `%s` 的初值不是零（其声明的初始化值非零或没有初始化）"),
    F(RW_ROWS_ACC_CHANGED, "the accumulator `%s` is changed between its zero initializer and its loop",
      "累加器 `%s` 在零初始化与它的循环之间被修改"),
    F(RW_ROWS_ACC_EARLIER, "the accumulator `%s` is reduced in an earlier loop too (a sum would not start at zero in every lane)",
      "累加器 `%s` 在更早的循环中也被归约（求和不会在每个 lane 中都从零开始）"),
    F(RW_ROWS_ACC_ELSEWHERE, "the accumulator `%s` is read or written elsewhere inside its loop",
      "累加器 `%s` 在其循环内的其他地方被读或写"),
    M(RW_ROWS_TOO_MANY_REDUCTIONS, "a column loop has more reductions than the rewrite tracks",
      "一个列循环中的归约超过了本代码改写能跟踪的数量"),
    M(RW_ROWS_UNBALANCED_COND, "an unbalanced condition in a column loop",
      "列循环中有括号不配对的条件"),
    M(RW_ROWS_COND_CHANGES, "a condition in a column loop changes a variable",
      "列循环中的条件修改了变量"),
    M(RW_ROWS_UNEXPECTED_STMT, "an unexpected statement in a column loop",
      "列循环中有意料之外的语句"),
    M(RW_ROWS_NESTED_LOOP, "a column loop holds a nested loop",
      "列循环中含有嵌套循环"),
    M(RW_ROWS_LOOP_RETURNS, "a column loop returns",
      "列循环中有 return"),
    F(RW_ROWS_STMT_KIND, "a statement in a column loop is neither a declaration, an assignment nor a store: `%s`",
      "列循环中的某条语句既不是声明、赋值，也不是写入：`%s`"),
    M(RW_ROWS_SECOND_VAR, "an assignment in a column loop changes a second variable",
      "列循环中的赋值修改了第二个变量"),
    F(RW_ROWS_STORE_NO_COLUMN, "a store to `%s` inside a column loop has an index that does not depend on the column",
      "列循环中对 `%s` 的写入，其下标不依赖于列"),
    F(RW_ROWS_LOOP_CHANGES_VAR, "the column loop changes its variable `%s`",
      "列循环修改了它的循环变量 `%s`"),
    F(RW_ROWS_WRITES_ROW_VAR, "the column loop writes the row variable `%s` other than as a sum/max/min reduction",
      "列循环以求和/最大值/最小值归约以外的方式写入了行变量 `%s`"),
    F(RW_ROWS_NOVEC_BRANCHES, "its body branches (`%s`), and float4 loads and stores are unconditional",
      "循环体有分支（`%s`），而 float4 读写是无条件的"),
    F(RW_ROWS_NOVEC_LOCAL_PTR, "it uses the loop-local pointer or array `%s`",
      "它使用了循环内的局部指针或数组 `%s`"),
    F(RW_ROWS_NOVEC_PTR, "it uses the pointer `%s` other than by subscript",
      "它以下标以外的方式使用了指针 `%s`"),
    F(RW_ROWS_NOVEC_NOT_FLOAT, "`%s` is not known as a pointer to float",
      "无法确认 `%s` 是指向 float 的指针"),
    F(RW_ROWS_NOVEC_SUBSCRIPT, "an unbalanced subscript of `%s`",
      "`%s` 的下标括号不配对"),
    F(RW_ROWS_NOVEC_INDEX, "the index of `%s[...]` is not `base + %s` with a row-invariant base",
      "`%s[...]` 的下标不是基址与行无关的 `base + %s`"),
    F(RW_ROWS_NOVEC_SHIFT, "the index of `%s[...]` shifts the column by a constant",
      "`%s[...]` 的下标把列平移了一个常量"),
    F(RW_ROWS_NOVEC_UPDATED, "`%s[...]` is updated in place, indexed further or has its address taken",
      "`%s[...]` 被原地更新、继续下标访问或被取地址"),
    F(RW_ROWS_NOVEC_ROWS, "it reads and writes more than %d rows of memory",
      "它读写的内存超过 %d 行"),
    F(RW_ROWS_NOVEC_ACCESSES, "it has more than %d memory accesses",
      "它的访存超过 %d 处"),
    M(RW_ROWS_NOVEC_NO_MEMORY, "it accesses no memory",
      "它不访问内存"),
    M(RW_ROWS_UNBALANCED_HEADER, "an unbalanced loop header",
      "循环头括号不配对"),
    M(RW_ROWS_NO_COLUMN_VAR, "a loop does not declare its column variable (`for (int c = 0; ...)`)",
      "循环没有声明它的列变量（`for (int c = 0; ...)`）"),
    M(RW_ROWS_NOT_COLUMN_LOOP, "a loop is not `for (int c = 0; c < cols; c++)`",
      "循环不是 `for (int c = 0; c < cols; c++)`"),
    M(RW_ROWS_NOT_COLS_COND, "a loop condition is not `c < cols` (with a bound that does not change)",
      "循环条件不是 `c < cols`（且边界不变）"),
    M(RW_ROWS_NOT_STEP_ONE, "a loop does not step its column by one",
      "循环的列步长不是 1"),
    M(RW_ROWS_BODY_UNREADABLE, "the kernel body could not be read",
      "无法读取核函数体"),
    M(RW_ROWS_TOO_MANY_PRE_DECLS, "too many declarations before the bounds check",
      "边界检查之前的声明过多"),
    M(RW_ROWS_PRE_NOT_DECL, "a statement that is not a plain declaration comes before the bounds check",
      "边界检查之前有一条不是普通声明的语句"),
    M(RW_ROWS_NO_ROW_INDEX, "the body has no row index `int r = blockIdx.x * blockDim.x + threadIdx.x;` before its bounds check",
      "函数体在边界检查之前没有行索引 `int r = blockIdx.x * blockDim.x + threadIdx.x;`"),
    M(RW_ROWS_NO_BOUNDS_CHECK, "no bounds check `if (r >= rows) return;` or `if (r < rows) { ... }` after the row index",
      "行索引之后没有边界检查 `if (r >= rows) return;` 或 `if (r < rows) { ... }`"),
    M(RW_ROWS_UNBALANCED_CHECK, "unbalanced bounds check",
      "边界检查括号不配对"),
    M(RW_ROWS_CHECK_ELSE, "the bounds check has an else branch",
      "边界检查带有 else 分支"),
    M(RW_ROWS_EARLY_RETURN_FORM, "the early return is not `if (r >= rows) return;` with a bound free of r",
      "提前返回不是 `if (r >= rows) return;`（且边界中不含 r）"),
    M(RW_ROWS_CHECK_FORM, "the bounds check is not `if (r < rows)` with a bound free of r",
      "边界检查不是 `if (r < rows)`（且边界中不含 r）"),
    M(RW_ROWS_STMTS_AFTER_CHECK, "statements follow the bounds check block",
      "边界检查块之后还有语句"),
    M(RW_ROWS_ROW_RETURNS, "the row body returns (only the bounds check may)",
      "行处理代码中有 return（只有边界检查可以 return）"),
    M(RW_ROWS_CHECK_DEPENDS, "the bounds check depends on the row index",
      "边界检查依赖于行索引"),
    M(RW_ROWS_TOO_MANY_STMTS, "the row body has more statements than the rewrite handles",
      "行处理代码的语句超过了本代码改写能处理的数量"),
    F(RW_ROWS_ROW_STMT_KIND, "a row-level statement is neither a declaration, a column loop, an assignment nor a store: `%s ...`",
      "行级语句既不是声明、列循环、赋值，也不是写入：`%s ...`"),
    M(RW_ROWS_ROW_SECOND_VAR, "a row-level assignment changes a second variable",
      "行级赋值修改了第二个变量"),
    F(RW_ROWS_CHANGES_CHECKED, "the row body changes `%s`, which the bounds check reads",
      "行处理代码修改了边界检查读取的 `%s`"),
    M(RW_ROWS_CHANGES_ROW_INDEX, "the row body changes the row index",
      "行处理代码修改了行索引"),
    F(RW_ROWS_STORE_NO_ROW, "a store to `%s` outside the column loops does not depend on the row",
      "列循环之外对 `%s` 的写入不依赖于行"),
    M(RW_ROWS_NO_COLUMN_LOOP, "no column loop `for (int c = 0; c < cols; c++)` in the row body: not a thread-per-row kernel",
      "行处理代码中没有列循环 `for (int c = 0; c < cols; c++)`：不是每线程处理一行的核函数"),
    F(RW_ROWS_STORED_OUTSIDE, "`%s` is stored in a column loop and accessed outside the column loops (every lane would read elements other lanes own)",
      "`%s` 在列循环中被写入，又在列循环之外被访问（每个 lane 会读到其他 lane 负责的元素）"),
    F(RW_ROWS_STORED_NOT_SUBSCRIPT, "`%s`, stored in a column loop, is used other than by subscript in the row body",
      "在列循环中被写入的 `%s`，在行处理代码中以下标以外的方式被使用"),
    F(RW_ROWS_STORED_OTHER_INDEX, "`%s` is stored in a column loop and accessed at another index (another lane owns that element)",
      "`%s` 在列循环中被写入，又以另一个下标被访问（该元素由另一个 lane 负责）"),
    F(RW_ROWS_STORED_LOCAL_INDEX, "`%s` is stored in a column loop at an index of loop-local variables and accessed in another loop",
      "`%s` 在列循环中以循环局部变量构成的下标被写入，又在另一个循环中被访问"),
    F(RW_ROWS_STORED_CHANGED_INDEX, "`%.60s` is stored in one column loop and accessed in another at an index of `%.60s`, which the row body changes (the same text may name another element)",
      "`%.60s` 在一个列循环中被写入，又在另一个列循环中以含 `%.60s` 的下标被访问，而行处理代码会修改它（同样的文本可能指向另一个元素）"),
    F(RW_ROWS_STORED_BEFORE_CHECK, "`%s` is stored in the row body and used by a declaration before the bounds check",
      "`%s` 在行处理代码中被写入，又被边界检查之前的声明使用"),
    F(RW_ROWS_ELIDED, "`%s`, stored in the column loop at line %u and updated in place in the one at line %u, is kept in a register there and recomputed by the update, the same value: one write and one read of each row element less",
      "`%s` 在第 %u 行的列循环中被写入，又在第 %u 行的列循环中被原地更新，现改为在那里保存在寄存器中并由更新语句重新计算，值相同：每个行元素少一次写入和一次读取"),
    F(RW_ROWS_WARP_FILLS, "bounds check at line %u: its bound `%s` is %lld rows at the spec's first size, at least the device's %d SMs x %d warps = %lld resident warps: a warp per row (row_threads 32) fills the GPU without a block's barriers",
      "边界检查（第 %u 行）：其边界 `%s` 在 spec 的第一个规模下为 %lld 行，不少于设备的 %d 个 SM x %d 个 warp = %lld 个驻留 warp：每行一个 warp（row_threads 32）即可占满 GPU，无需线程块内的同步屏障"),
    F(RW_ROWS_FEW_COLUMNS, "column loop at line %u: it runs to `%s`, %lld columns at the spec's first size, fewer than the %u threads of a row's block (some would idle)",
      "列循环（第 %u 行）：它循环到 `%s`，在 spec 的第一个规模下为 %lld 列，少于每行线程块的 %u 个线程（部分线程会空闲）"),
    M(RW_ROWS_BODY_LARGE, "the body is far larger than a thread-per-row kernel",
      "函数体远大于一个每线程处理一行的核函数"),
    F(RW_ROWS_SLIDING_WINDOW, "a sliding window, not a row: consecutive threads read neighbouring elements and the loop steps by one (%s), a 1-D stencil or convolution whose loads the threads already share through the caches; a warp per output would spend 32 lanes on each window",
      "这是滑动窗口而不是行：相邻线程读取相邻元素且循环步长为 1（%s），是一维 stencil 或卷积，线程之间已经通过缓存共享了这些读取；每个输出一个 warp 会在每个窗口上耗费 32 个 lane"),
    F(RW_ROWS_ALREADY_COALESCED, "the loop's loads are already coalesced across the threads (%s: consecutive threads read consecutive elements, and the loop steps by a row): a warp per row would read them a row apart",
      "循环的读取在线程之间已经是合并访存（%s：相邻线程读取相邻元素，且循环步长为一行）：每行一个 warp 反而会相隔一行读取它们"),
    F(RW_ROWS_SUMMED_IN_REGISTER, "%s; %s summed in a register per row, added once after its loop, instead of in memory on every iteration",
      "%s；%s 每行在寄存器中累加，循环结束后加一次，而不是每次迭代都写内存"),
    /* rewrite_mem.c (vectorize, read-only loads, unroll, fast math) */
    F(RW_MEM_GATHER_PTR_PTR, "statement at line %u: pointer %s is used other than as %s[%s] or %s[s * %s + k] (another index, a dereference or the pointer itself) and is a pointer to pointers, so its elements are not the thread's own: only a pointer the kernel never writes is read per element at another index",
      "语句（第 %u 行）：指针 %s 除了作为 %s[%s] 或 %s[s * %s + k] 之外还有其他用法（另一个索引、解引用或指针本身），并且它是指向指针的指针，因此它的元素不归本线程所有：只有核函数从不写入的指针才能在另一个索引处逐元素读取"),
    F(RW_MEM_GATHER_UNBALANCED, "statement at line %u: pointer %s is used other than as %s[%s] or %s[s * %s + k] (another index, a dereference or the pointer itself) and has an unbalanced subscript, so its elements are not the thread's own: only a pointer the kernel never writes is read per element at another index",
      "语句（第 %u 行）：指针 %s 除了作为 %s[%s] 或 %s[s * %s + k] 之外还有其他用法（另一个索引、解引用或指针本身），并且它的下标括号不配对，因此它的元素不归本线程所有：只有核函数从不写入的指针才能在另一个索引处逐元素读取"),
    F(RW_MEM_GATHER_WRITTEN, "statement at line %u: pointer %s is used other than as %s[%s] or %s[s * %s + k] (another index, a dereference or the pointer itself) and is written, so its elements are not the thread's own: only a pointer the kernel never writes is read per element at another index",
      "语句（第 %u 行）：指针 %s 除了作为 %s[%s] 或 %s[s * %s + k] 之外还有其他用法（另一个索引、解引用或指针本身），并且它被写入，因此它的元素不归本线程所有：只有核函数从不写入的指针才能在另一个索引处逐元素读取"),
    F(RW_MEM_GATHER_MEMBER, "statement at line %u: pointer %s is used other than as %s[%s] or %s[s * %s + k] (another index, a dereference or the pointer itself) and has a member or a nested element accessed, so its elements are not the thread's own: only a pointer the kernel never writes is read per element at another index",
      "语句（第 %u 行）：指针 %s 除了作为 %s[%s] 或 %s[s * %s + k] 之外还有其他用法（另一个索引、解引用或指针本身），并且它的成员或嵌套元素被访问，因此它的元素不归本线程所有：只有核函数从不写入的指针才能在另一个索引处逐元素读取"),
    F(RW_MEM_GATHER_ADDRESS, "statement at line %u: pointer %s is used other than as %s[%s] or %s[s * %s + k] (another index, a dereference or the pointer itself) and has an element's address taken (an atomic or a call could write it), so its elements are not the thread's own: only a pointer the kernel never writes is read per element at another index",
      "语句（第 %u 行）：指针 %s 除了作为 %s[%s] 或 %s[s * %s + k] 之外还有其他用法（另一个索引、解引用或指针本身），并且它的某个元素被取了地址（原子操作或函数调用可能写入它），因此它的元素不归本线程所有：只有核函数从不写入的指针才能在另一个索引处逐元素读取"),
    F(RW_MEM_GATHER_PASSED, "statement at line %u: pointer %s is used other than as %s[%s] or %s[s * %s + k] (another index, a dereference or the pointer itself) and has an element passed to a function (a reference parameter could write it), so its elements are not the thread's own: only a pointer the kernel never writes is read per element at another index",
      "语句（第 %u 行）：指针 %s 除了作为 %s[%s] 或 %s[s * %s + k] 之外还有其他用法（另一个索引、解引用或指针本身），并且它的某个元素被传给了函数（引用参数可能写入它），因此它的元素不归本线程所有：只有核函数从不写入的指针才能在另一个索引处逐元素读取"),
    F(RW_MEM_GATHER_AS_POINTER, "statement at line %u: pointer %s is used other than as %s[%s] or %s[s * %s + k] (another index, a dereference or the pointer itself) and is used as a pointer (passed on, copied, offset or assigned), which could write its elements, so its elements are not the thread's own: only a pointer the kernel never writes is read per element at another index",
      "语句（第 %u 行）：指针 %s 除了作为 %s[%s] 或 %s[s * %s + k] 之外还有其他用法（另一个索引、解引用或指针本身），并且它被当作指针使用（被传出、复制、偏移或赋值），这可能写入它的元素，因此它的元素不归本线程所有：只有核函数从不写入的指针才能在另一个索引处逐元素读取"),
    F(RW_MEM_WRITTEN_TWICE, "%s[%ld * %s + %ld] is written more than once per index: each of the %ld elements of an index must be stored exactly once (the vector store writes them all)",
      "%s[%ld * %s + %ld] 在每个索引中被写入了不止一次：每个索引的 %ld 个元素都必须恰好写入一次（向量写入会把它们全部写入）"),
    F(RW_MEM_NEVER_WRITTEN, "%s[%ld * %s + %ld] is never written per index: each of the %ld elements of an index must be stored exactly once (the vector store writes them all)",
      "%s[%ld * %s + %ld] 在每个索引中从未被写入：每个索引的 %ld 个元素都必须恰好写入一次（向量写入会把它们全部写入）"),
    F(RW_MEM_NO_CARRIER_TEMPLATE, "%s (%s by its spec's template argument) has no %d-byte carrier for %d lanes",
      "%s（由 spec 的模板实参确定为 %s）没有 %d 字节的载体类型来容纳 %d 个 lane"),
    F(RW_MEM_NO_CARRIER_BRANCH, "%s (%s by its #if branch) has no %d-byte carrier for %d lanes",
      "%s（由其 #if 分支确定为 %s）没有 %d 字节的载体类型来容纳 %d 个 lane"),
    F(RW_MEM_NO_VECTOR_24, "%s has no %d-wide vector type (%s: widths 2 and 4)",
      "%s 没有 %d 宽的向量类型（%s：宽度只能为 2 和 4）"),
    F(RW_MEM_NO_VECTOR_248, "%s has no %d-wide vector type (%s: widths 2, 4 and 8)",
      "%s 没有 %d 宽的向量类型（%s：宽度只能为 2、4 和 8）"),
    F(RW_MEM_NO_VECTOR_2, "%s has no %d-wide vector type (%s: widths 2)",
      "%s 没有 %d 宽的向量类型（%s：宽度只能为 2）"),
    F(RW_MEM_DESC_INDEX, "kernel %s: %d-wide vector loads/stores of %s (%d index of %ld elements per vector; %s form, now a grid-stride loop with a scalar tail and an alignment fallback%s)",
      "核函数 %s：%d 宽的向量读写 %s（每个向量含 %d 个索引，每个索引 %ld 个元素；原为 %s 形式，现改为带标量尾部和对齐回退的网格跨步循环%s）"),
    F(RW_MEM_DESC_INDEX_PROLOGUE, "kernel %s: %d-wide vector loads/stores of %s (%d index of %ld elements per vector; %s form after a prologue kept before it, now a grid-stride loop with a scalar tail and an alignment fallback%s)",
      "核函数 %s：%d 宽的向量读写 %s（每个向量含 %d 个索引，每个索引 %ld 个元素；原为 %s 形式（其前保留一段前导代码），现改为带标量尾部和对齐回退的网格跨步循环%s）"),
    F(RW_MEM_DESC_INDICES, "kernel %s: %d-wide vector loads/stores of %s (%d indices of %ld elements per vector; %s form, now a grid-stride loop with a scalar tail and an alignment fallback%s)",
      "核函数 %s：%d 宽的向量读写 %s（每个向量含 %d 个索引，每个索引 %ld 个元素；原为 %s 形式，现改为带标量尾部和对齐回退的网格跨步循环%s）"),
    F(RW_MEM_DESC_INDICES_PROLOGUE, "kernel %s: %d-wide vector loads/stores of %s (%d indices of %ld elements per vector; %s form after a prologue kept before it, now a grid-stride loop with a scalar tail and an alignment fallback%s)",
      "核函数 %s：%d 宽的向量读写 %s（每个向量含 %d 个索引，每个索引 %ld 个元素；原为 %s 形式（其前保留一段前导代码），现改为带标量尾部和对齐回退的网格跨步循环%s）"),
    F(RW_MEM_DESC, "kernel %s: %d-wide vector loads/stores of %s (%s form, now a grid-stride loop with a scalar tail and an alignment fallback%s)",
      "核函数 %s：%d 宽的向量读写 %s（原为 %s 形式，现改为带标量尾部和对齐回退的网格跨步循环%s）"),
    F(RW_LDG_ALREADY, "read-only loads: kernel %s already loads its read-only pointers through __ldg",
      "read-only loads：核函数 %s 已经通过 __ldg 读取其只读指针"),
    F(RW_LDG_ALREADY_SKIPPED, "read-only loads: kernel %s already loads its read-only pointers through __ldg; skipped: %s",
      "read-only loads：核函数 %s 已经通过 __ldg 读取其只读指针；跳过：%s"),
    M(RW_LDG_NONE, "no load from a pointer the kernel never writes",
      "没有从核函数从不写入的指针进行的读取"),
    F(RW_LDG_NONE_SKIPPED, "no load from a pointer the kernel never writes (skipped: %s)",
      "没有从核函数从不写入的指针进行的读取（跳过：%s）"),
    F(RW_LDG_DESC, "kernel %s: loads through __ldg from %s",
      "核函数 %s：通过 __ldg 读取 %s"),
    F(RW_LDG_DESC_SKIPPED, "kernel %s: loads through __ldg from %s; skipped: %s",
      "核函数 %s：通过 __ldg 读取 %s；跳过：%s"),
    M(RW_UNROLL_NO_FOR, "the body has no for-loop",
      "函数体中没有 for 循环"),
    F(RW_UNROLL_ALL_HAVE, "already: every innermost for-loop has an unroll pragma (line %s)",
      "已经完成：每个最内层 for 循环都有 unroll pragma（第 %s 行）"),
    F(RW_UNROLL_NOT_CONSTANT, "no innermost for-loop with a constant trip count for full unrolling (line %s)",
      "没有迭代次数为常量、可完全展开的最内层 for 循环（第 %s 行）"),
    F(RW_UNROLL_DESC_1, "kernel %s: %s on the innermost for-loop at line %s",
      "核函数 %s：%s 加在最内层 for 循环上（第 %s 行）"),
    F(RW_UNROLL_DESC_1_N, "kernel %s: %s on the innermost for-loop at line %s; trip count not constant: line %s",
      "核函数 %s：%s 加在最内层 for 循环上（第 %s 行）；迭代次数不是常量：第 %s 行"),
    F(RW_UNROLL_DESC_1_H, "kernel %s: %s on the innermost for-loop at line %s; already had one: line %s",
      "核函数 %s：%s 加在最内层 for 循环上（第 %s 行）；已有 pragma：第 %s 行"),
    F(RW_UNROLL_DESC_1_HN, "kernel %s: %s on the innermost for-loop at line %s; already had one: line %s; trip count not constant: line %s",
      "核函数 %s：%s 加在最内层 for 循环上（第 %s 行）；已有 pragma：第 %s 行；迭代次数不是常量：第 %s 行"),
    F(RW_UNROLL_DESC_S, "kernel %s: %s on the innermost for-loops at lines %s",
      "核函数 %s：%s 加在最内层 for 循环上（第 %s 行）"),
    F(RW_UNROLL_DESC_S_N, "kernel %s: %s on the innermost for-loops at lines %s; trip count not constant: line %s",
      "核函数 %s：%s 加在最内层 for 循环上（第 %s 行）；迭代次数不是常量：第 %s 行"),
    F(RW_UNROLL_DESC_S_H, "kernel %s: %s on the innermost for-loops at lines %s; already had one: line %s",
      "核函数 %s：%s 加在最内层 for 循环上（第 %s 行）；已有 pragma：第 %s 行"),
    F(RW_UNROLL_DESC_S_HN, "kernel %s: %s on the innermost for-loops at lines %s; already had one: line %s; trip count not constant: line %s",
      "核函数 %s：%s 加在最内层 for 循环上（第 %s 行）；已有 pragma：第 %s 行；迭代次数不是常量：第 %s 行"),
    F(RW_FM_ALREADY, "fast math: kernel %s already uses the intrinsics and has no other float math call or division to change",
      "fast math：核函数 %s 已经使用了 intrinsic，没有其他可替换的 float 数学函数调用或除法"),
    F(RW_FM_ALREADY_LEFT, "fast math: kernel %s already uses the intrinsics and has no other float math call or division to change (divisions of other types left)",
      "fast math：核函数 %s 已经使用了 intrinsic，没有其他可替换的 float 数学函数调用或除法（其他类型的除法保持不变）"),
    M(RW_FM_NONE, "no expf, logf, sinf, cosf, tanf, powf, sincosf, exp10f, log2f, log10f call (nor exp, log, sin, ... on float arguments) or float division in its body",
      "函数体中没有 expf、logf、sinf、cosf、tanf、powf、sincosf、exp10f、log2f、log10f 调用（也没有参数为 float 的 exp、log、sin 等调用），也没有 float 除法"),
    M(RW_FM_NONE_DIVS_LEFT, "no expf, logf, sinf, cosf, tanf, powf, sincosf, exp10f, log2f, log10f call (nor exp, log, sin, ... on float arguments) or float division in its body (divisions of integers, doubles or unknown types are left)",
      "函数体中没有 expf、logf、sinf、cosf、tanf、powf、sincosf、exp10f、log2f、log10f 调用（也没有参数为 float 的 exp、log、sin 等调用），也没有 float 除法（整数、double 或未知类型的除法保持不变）"),
    M(RW_FM_NONE_CALLS_LEFT, "no expf, logf, sinf, cosf, tanf, powf, sincosf, exp10f, log2f, log10f call (nor exp, log, sin, ... on float arguments) or float division in its body (calls of exp, log, sin, ... on double, integer or unknown arguments are left)",
      "函数体中没有 expf、logf、sinf、cosf、tanf、powf、sincosf、exp10f、log2f、log10f 调用（也没有参数为 float 的 exp、log、sin 等调用），也没有 float 除法（参数为 double、整数或未知类型的 exp、log、sin 等调用保持不变）"),
    M(RW_FM_NONE_BOTH_LEFT, "no expf, logf, sinf, cosf, tanf, powf, sincosf, exp10f, log2f, log10f call (nor exp, log, sin, ... on float arguments) or float division in its body (divisions of integers, doubles or unknown types are left) (calls of exp, log, sin, ... on double, integer or unknown arguments are left)",
      "函数体中没有 expf、logf、sinf、cosf、tanf、powf、sincosf、exp10f、log2f、log10f 调用（也没有参数为 float 的 exp、log、sin 等调用），也没有 float 除法（整数、double 或未知类型的除法保持不变）（参数为 double、整数或未知类型的 exp、log、sin 等调用保持不变）"),
    F(RW_FM_DIV_LEFT, "; %zu division of another or unknown type left",
      "；%zu 处其他或未知类型的除法保持不变"),
    F(RW_FM_DIVS_LEFT, "; %zu divisions of another or unknown type left",
      "；%zu 处其他或未知类型的除法保持不变"),
    F(RW_FM_CALL_LEFT, "; %zu call of exp, log, sin, ... on another or unknown type left",
      "；%zu 处参数为其他或未知类型的 exp、log、sin 等调用保持不变"),
    F(RW_FM_CALLS_LEFT, "; %zu calls of exp, log, sin, ... on another or unknown type left",
      "；%zu 处参数为其他或未知类型的 exp、log、sin 等调用保持不变"),
    F(RW_MEM_TYPEDEFS_DISAGREE, "element type %s has typedefs that disagree or name no scalar type (e.g. one per #if branch)",
      "元素类型 %s 的各个 typedef 互相矛盾，或没有指向标量类型（例如每个 #if 分支各有一个）"),
    M(RW_MEM_SYNC_SHARED, "the per-element code synchronizes, uses shared memory, static state or asm",
      "逐元素代码中有同步、共享内存、静态状态或 asm"),
    M(RW_MEM_ATOMIC, "the per-element code uses an atomic (a reduction or a scatter, not elementwise)",
      "逐元素代码使用了原子操作（这是归约或 scatter，不是逐元素运算）"),
    M(RW_MEM_UNCONDITIONAL, "without a bounds check the per-element code must run unconditionally (a condition or loop might mean the data ends before the grid)",
      "没有边界检查时，逐元素代码必须无条件执行（条件或循环可能意味着数据在网格之前就结束了）"),
    M(RW_MEM_CHECK_NOT_PLAIN, "the bounds check is not a plain `i < n` comparison",
      "边界检查不是简单的 `i < n` 比较"),
    M(RW_MEM_CHECK_NO_BOUND, "the bounds check has no bound",
      "边界检查没有边界"),
    M(RW_MEM_BOUND_NOT_SIMPLE, "the bound is not a simple expression independent of the index",
      "边界不是与索引无关的简单表达式"),
    M(RW_MEM_LOOP_FORM, "the loop is not `for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)`",
      "循环不是 `for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)`"),
    M(RW_MEM_LOOP_COND, "the loop condition is not `i < n`",
      "循环条件不是 `i < n`"),
    M(RW_MEM_LOOP_STEP, "the loop step is not `i += gridDim.x * blockDim.x`",
      "循环步长不是 `i += gridDim.x * blockDim.x`"),
    M(RW_MEM_AFTER_LOOP, "statements follow the grid-stride loop",
      "网格跨步循环之后还有语句"),
    M(RW_MEM_NO_INDEX_TOP, "no `int i = blockIdx.x * blockDim.x + threadIdx.x;` at the top level of the body",
      "函数体顶层没有 `int i = blockIdx.x * blockDim.x + threadIdx.x;`"),
    M(RW_MEM_NO_CHECK_AFTER_INDEX, "the index declaration is not followed by `if (i < n) ...` or `if (i >= n) return;` (nor by code that runs unconditionally, one element per thread of the grid)",
      "索引声明之后不是 `if (i < n) ...` 或 `if (i >= n) return;`（也不是每个网格线程处理一个元素、无条件执行的代码）"),
    M(RW_MEM_NO_CHECK, "no bounds check: one element per thread of the grid",
      "没有边界检查：网格中每个线程处理一个元素"),
    M(RW_MEM_AFTER_CHECK, "statements follow the bounds check: they run once per thread, not per element",
      "边界检查之后还有语句：它们每个线程执行一次，而不是每个元素一次"),
    M(RW_MEM_NOT_PLAIN_RETURN, "`if (i >= n)` is not followed by a plain return",
      "`if (i >= n)` 之后不是单纯的 return"),
    M(RW_MEM_NOTHING_AFTER_CHECK, "nothing follows the bounds check",
      "边界检查之后没有任何代码"),
    F(RW_MEM_WIDTH_MULTIPLE, "width %d is not a multiple of the %ld elements of each index",
      "宽度 %d 不是每个索引的 %ld 个元素的倍数"),
    F(RW_MEM_WRITTEN_NESTED, "%s[%ld * %s + %ld] is written inside a nested statement or under a condition: each of the %ld elements of an index must be stored once, unconditionally (the vector store writes them all)",
      "%s[%ld * %s + %ld] 在嵌套语句中或条件之下被写入：每个索引的 %ld 个元素都必须无条件地写入一次（向量写入会把它们全部写入）"),
    F(RW_MEM_READS_SOME, "%s reads only some of the %ld elements of each index (not %s[%ld * %s + %ld]): a vector load would read elements the kernel never reads",
      "%s 只读取每个索引的 %ld 个元素中的一部分（没有 %s[%ld * %s + %ld]）：向量读取会读到核函数从不读取的元素"),
    F(RW_MEM_ELEM_TYPE_SPEC, "%s has element type %s, the spec's %s (vectorized: float, double, int, unsigned, __half, __nv_bfloat16)",
      "%s 的元素类型是 %s，即 spec 的 %s（可向量化的类型：float、double、int、unsigned、__half、__nv_bfloat16）"),
    F(RW_MEM_ELEM_TYPE, "%s has element type %s (vectorized: float, double, int, unsigned, __half, __nv_bfloat16)",
      "%s 的元素类型是 %s（可向量化的类型：float、double、int、unsigned、__half、__nv_bfloat16）"),
    M(RW_MEM_ALREADY, "already vectorized (the body has the rewrite's hk_nv loop)",
      "已经向量化过了（函数体中有本代码改写的 hk_nv 循环）"),
    M(RW_MEM_EMPTY, "the per-element code is empty",
      "逐元素代码为空"),
    M(RW_MEM_CHANGES_INDEX, "the per-element code changes the index",
      "逐元素代码修改了索引"),
    F(RW_MEM_READ_IN_LOOP, "pointer %s is read at another index inside a loop of the per-element code (a reduction over a row or a window, not elementwise: left to the class's rewrite)",
      "指针 %s 在逐元素代码的循环中以另一个索引被读取（这是按行或按窗口的归约，不是逐元素运算：交给该类别的代码改写）"),
    M(RW_MEM_TOO_MANY_ACCESSES, "too many pointer accesses in the per-element code",
      "逐元素代码中的指针访问过多"),
    F(RW_MEM_STEPS, "%s steps %ld elements per index (vectorized: 1, 2 or 4)",
      "%s 每个索引跨 %ld 个元素（可向量化：1、2 或 4）"),
    F(RW_MEM_REACHES_PAST, "%s reaches past the %ld elements of its index (an element of another index)",
      "%s 越过了其索引的 %ld 个元素（访问到另一个索引的元素）"),
    F(RW_MEM_STRIDES_DIFFER, "the pointers are accessed with different strides (elements per index): %s %ld, %s %ld",
      "各指针的访问步长（每个索引的元素数）不同：%s %ld，%s %ld"),
    F(RW_MEM_PTR_PTR, "%s is a pointer to pointers",
      "%s 是指向指针的指针"),
    M(RW_MEM_TOO_MANY_PTRS, "too many pointers",
      "指针过多"),
    F(RW_MEM_UPDATES_OUTSIDE, "the per-element code updates %.*s, declared outside it (a reduction or state carried across elements)",
      "逐元素代码更新了在其外部声明的 %.*s（跨元素携带的归约或状态）"),
    M(RW_MEM_NO_WRITE, "the per-element code writes no pointer parameter at the thread's index",
      "逐元素代码没有在线程自己的索引处写入任何指针参数"),
    M(RW_MEM_NAME_TOO_LONG, "a pointer's name is too long for its vector's",
      "指针名对于其向量名来说太长"),
    F(RW_MEM_NAME_CLASH, "the code uses the name %.*s, which the vector form declares",
      "代码用到了名字 %.*s，而向量形式会声明这个名字"),
    F(RW_MEM_LAUNCH_ALIAS, "a launch in the file passes the same pointer as %s, read at another index, and %s, written at the thread's own: the vector form would read a stale element",
      "文件中有一处启动把同一个指针同时作为 %s（以另一个索引读取）和 %s（在线程自己的索引处写入）传入：向量形式会读到过时的元素"),
    F(RW_MEM_GATHER_NOTE, "; %s read by scalar loads in each lane",
      "；%s 在每个 lane 中以标量方式读取"),
    F(RW_MEM_TEMPLATE_NOTE, "; %s as the spec's %s: the vector path when sizeof(%s) == %d",
      "；%s 作为 spec 的 %s：sizeof(%s) == %d 时走向量路径"),
    F(RW_MEM_MACRO_EXPANDED, "the %s loop macro expanded",
      "已展开 %s 循环宏"),
    M(RW_MEM_WHILE_AS_FOR, "the while loop read as a for loop",
      "while 循环已按 for 循环读取"),
    M(RW_LDG_AMD, "on AMD/DCU GPUs __ldg is an ordinary load (HIP keeps it only for source compatibility) and there is no separate read-only data path to select",
      "在 AMD/DCU GPU 上 __ldg 只是普通读取（HIP 保留它只为源码兼容），没有单独的只读数据通路可选"),
    F(RW_LDG_SKIP_WRITTEN, "%s%s (written or passed on)",
      "%s%s（被写入或被传出）"),
    F(RW_LDG_SKIP_ALIAS, "%s%s (a launch passes it as %s too, which is written)",
      "%s%s（某处启动也把它作为 %s 传入，而后者会被写入）"),
    /* rewrite_blas.c (blas_substitution) */
    F(RW_BLAS_DESC_1, "kernel %s: %s (%s math) on %s (%s), %s; hk_host_%s called by %zu launch site and by the benchmark program (HK_HOST_CALL_%s); the kernel is kept unused; link with %s",
      "核函数 %s：改为 %s（%s 运算），作用于 %s（%s），%s；hk_host_%s 由 %zu 处启动和基准测试程序（HK_HOST_CALL_%s）调用；原核函数保留但不再使用；链接时需加 %s"),
    F(RW_BLAS_DESC_1_G, "kernel %s: %s (%s math) on %s (%s), %s; a size the kernel does not bound is the launch's grid x block (HK_HOST_CALL_GRID_: the launch is passed first); hk_host_%s called by %zu launch site and by the benchmark program (HK_HOST_CALL_%s); the kernel is kept unused; link with %s",
      "核函数 %s：改为 %s（%s 运算），作用于 %s（%s），%s；核函数未限定的规模取启动的 grid x block（HK_HOST_CALL_GRID_：启动配置作为第一个参数传入）；hk_host_%s 由 %zu 处启动和基准测试程序（HK_HOST_CALL_%s）调用；原核函数保留但不再使用；链接时需加 %s"),
    F(RW_BLAS_DESC_1_C, "kernel %s: %s (%s math) on %s (%s), %s (from the kernel model's class); hk_host_%s called by %zu launch site and by the benchmark program (HK_HOST_CALL_%s); the kernel is kept unused; link with %s",
      "核函数 %s：改为 %s（%s 运算），作用于 %s（%s），%s（来自核函数模型的类别）；hk_host_%s 由 %zu 处启动和基准测试程序（HK_HOST_CALL_%s）调用；原核函数保留但不再使用；链接时需加 %s"),
    F(RW_BLAS_DESC_1_CG, "kernel %s: %s (%s math) on %s (%s), %s (from the kernel model's class); a size the kernel does not bound is the launch's grid x block (HK_HOST_CALL_GRID_: the launch is passed first); hk_host_%s called by %zu launch site and by the benchmark program (HK_HOST_CALL_%s); the kernel is kept unused; link with %s",
      "核函数 %s：改为 %s（%s 运算），作用于 %s（%s），%s（来自核函数模型的类别）；核函数未限定的规模取启动的 grid x block（HK_HOST_CALL_GRID_：启动配置作为第一个参数传入）；hk_host_%s 由 %zu 处启动和基准测试程序（HK_HOST_CALL_%s）调用；原核函数保留但不再使用；链接时需加 %s"),
    F(RW_BLAS_DESC_S, "kernel %s: %s (%s math) on %s (%s), %s; hk_host_%s called by %zu launch sites and by the benchmark program (HK_HOST_CALL_%s); the kernel is kept unused; link with %s",
      "核函数 %s：改为 %s（%s 运算），作用于 %s（%s），%s；hk_host_%s 由 %zu 处启动和基准测试程序（HK_HOST_CALL_%s）调用；原核函数保留但不再使用；链接时需加 %s"),
    F(RW_BLAS_DESC_S_G, "kernel %s: %s (%s math) on %s (%s), %s; a size the kernel does not bound is the launch's grid x block (HK_HOST_CALL_GRID_: the launch is passed first); hk_host_%s called by %zu launch sites and by the benchmark program (HK_HOST_CALL_%s); the kernel is kept unused; link with %s",
      "核函数 %s：改为 %s（%s 运算），作用于 %s（%s），%s；核函数未限定的规模取启动的 grid x block（HK_HOST_CALL_GRID_：启动配置作为第一个参数传入）；hk_host_%s 由 %zu 处启动和基准测试程序（HK_HOST_CALL_%s）调用；原核函数保留但不再使用；链接时需加 %s"),
    F(RW_BLAS_DESC_S_C, "kernel %s: %s (%s math) on %s (%s), %s (from the kernel model's class); hk_host_%s called by %zu launch sites and by the benchmark program (HK_HOST_CALL_%s); the kernel is kept unused; link with %s",
      "核函数 %s：改为 %s（%s 运算），作用于 %s（%s），%s（来自核函数模型的类别）；hk_host_%s 由 %zu 处启动和基准测试程序（HK_HOST_CALL_%s）调用；原核函数保留但不再使用；链接时需加 %s"),
    F(RW_BLAS_DESC_S_CG, "kernel %s: %s (%s math) on %s (%s), %s (from the kernel model's class); a size the kernel does not bound is the launch's grid x block (HK_HOST_CALL_GRID_: the launch is passed first); hk_host_%s called by %zu launch sites and by the benchmark program (HK_HOST_CALL_%s); the kernel is kept unused; link with %s",
      "核函数 %s：改为 %s（%s 运算），作用于 %s（%s），%s（来自核函数模型的类别）；核函数未限定的规模取启动的 grid x block（HK_HOST_CALL_GRID_：启动配置作为第一个参数传入）；hk_host_%s 由 %zu 处启动和基准测试程序（HK_HOST_CALL_%s）调用；原核函数保留但不再使用；链接时需加 %s"),
    F(RW_BLAS_EXPR_TOO_LONG, "an expression over %zu bytes",
      "超过 %zu 字节的表达式"),
    F(RW_BLAS_ALSO_WRITES, "line %u: the kernel also writes %s, which the library call would not",
      "第 %u 行：核函数还写入了 %s，而库函数调用不会写它"),
    F(RW_BLAS_WRITTEN_TWICE, "line %u: %s is written a second time (first at line %u), an epilogue the class does not capture",
      "第 %u 行：%s 被第二次写入（第一次在第 %u 行），这是该类别无法表示的尾处理（epilogue）"),
    M(RW_BLAS_NO_GLOBAL_WRITE, "the kernel writes no global buffer",
      "核函数没有写入任何全局缓冲区"),
    F(RW_BLAS_GUARD, "line %u: a guard (%s) in force at %s's write (line %u) is not its row's or column's global index < M or N, so it may skip part of %s",
      "第 %u 行：保护条件（%s）在 %s 的写入处（第 %u 行）起作用，但它不是其行或列的全局索引 < M 或 N，因此可能跳过 %s 的一部分"),
    F(RW_BLAS_TERM, "a term that is neither alpha*sum nor beta*%s",
      "既不是 alpha*sum 也不是 beta*%s 的项"),
    F(RW_BLAS_SUM_START, "line %u: the sum %s starts from a value other than 0, an epilogue the class does not capture",
      "第 %u 行：累加和 %s 的初值不是 0，这是该类别无法表示的尾处理（epilogue）"),
    F(RW_BLAS_SCALING, "a scaling of %s at line %u that is not one scalar",
      "%s 在第 %u 行的缩放不是单个标量"),
    F(RW_BLAS_ALPHA_TOO_LONG, "an alpha or beta over %d bytes",
      "超过 %d 字节的 alpha 或 beta"),
    F(RW_BLAS_VALUE_HOLDS, "line %u: %s's value holds %s, which the host cannot evaluate",
      "第 %u 行：%s 的值含有 %s，主机端无法求值"),
    F(RW_BLAS_SIZE_UNKNOWN, "line %u: %s is not known from the kernel: no guard or loop bounds it (only the launch grid does), and the host call gets only the kernel's arguments",
      "第 %u 行：无法从核函数得知 %s：没有保护条件或循环限定它（只有启动的网格限定它），而主机端调用只能拿到核函数的参数"),
    F(RW_BLAS_USES_UNEVALUABLE, "line %u: %s uses %s, which the host cannot evaluate",
      "第 %u 行：%s 用到了 %s，主机端无法求值"),
    F(RW_BLAS_SAME_AXIS, "line %u: rows and columns of %s both come from thread axis %c, so the launch's grid is not an M x N matrix",
      "第 %u 行：%s 的行和列都来自线程维度 %c，因此启动的网格不是 M x N 矩阵"),
    F(RW_BLAS_SHARED_TILES, "line %u: the product reads __shared__ tiles (already a tiled kernel)",
      "第 %u 行：乘积读取了 __shared__ 分块（已经是分块核函数）"),
    F(RW_BLAS_OPERAND_NOT_PARAM, "line %u: an operand is not a pointer parameter of the kernel",
      "第 %u 行：某个操作数不是核函数的指针参数"),
    F(RW_BLAS_ELEM_TYPES, "line %u: element types %s, %s, %s: only float or double throughout is substituted",
      "第 %u 行：元素类型为 %s、%s、%s：只替换全部为 float 或全部为 double 的情况"),
    F(RW_BLAS_READ_AND_WRITTEN, "line %u: %s is both read as an operand and written",
      "第 %u 行：%s 既作为操作数被读取又被写入"),
    F(RW_BLAS_NOT_QUITE, "line %u: not quite a %s: %s",
      "第 %u 行：不完全是 %s：%s"),
    F(RW_BLAS_BATCHED, "line %u: a batched %s (the class gives batch offsets, not the batch count)",
      "第 %u 行：批量 %s（该类别只给出批次偏移，没有给出批次数）"),
    F(RW_BLAS_TILE_EXTENT, "line %u: the tiles' block extent along %c uses %s, which the host cannot evaluate",
      "第 %u 行：分块沿 %c 的线程块范围用到了 %s，主机端无法求值"),
    F(RW_BLAS_TILED_BOUNDED, "line %u: a tiled GEMM whose sizes the kernel bounds (guards) is not substituted yet",
      "第 %u 行：核函数自己限定规模（保护条件）的分块 GEMM 暂不替换"),
    M(RW_BLAS_TF32_HIP, "TF32 math is a cuBLAS mode; the hipBLAS substitution is FP32 only",
      "TF32 运算是 cuBLAS 的一种模式；hipBLAS 替换只支持 FP32"),
    M(RW_BLAS_TF32_DOUBLE, "TF32 math applies to float; this is a double GEMM/GEMV",
      "TF32 运算只适用于 float；这是 double 的 GEMM/GEMV"),
    F(RW_BLAS_HOST_CANNOT, "%s (%s) uses %s, which is neither a scalar parameter nor a file-scope constant, so the host call cannot compute it",
      "%s（%s）用到了 %s，它既不是标量参数也不是文件作用域的常量，因此主机端调用无法计算它"),
    M(RW_BLAS_ALREADY, "the file already substitutes this kernel (it defines HK_HOST_CALL_ for it)",
      "该文件已经替换了这个核函数（它为其定义了 HK_HOST_CALL_）"),
    M(RW_BLAS_LAUNCH_KERNEL, "a launch through cudaLaunchKernel (its argument array cannot become a call)",
      "通过 cudaLaunchKernel 的启动（其参数数组无法变成函数调用）"),
    M(RW_BLAS_NO_GRID, "a launch site without a grid or block, which the library call's sizes come from",
      "启动处没有 grid 或 block，而库函数调用的规模来自它们"),
    M(RW_BLAS_ARG_COUNT, "a launch site passes a different number of arguments, or a template kernel is launched without explicit template arguments",
      "某处启动传入的参数个数不同，或模板核函数启动时没有显式给出模板实参"),
    F(RW_BLAS_STREAM, "a launch site runs on stream %s; the library call runs on the legacy default stream",
      "某处启动运行在流 %s 上；库函数调用运行在传统默认流（legacy default stream）上"),
    M(RW_BLAS_BEFORE_DEF, "a launch site comes before the kernel's definition, where the host function is not declared yet",
      "某处启动位于核函数定义之前，此处主机端函数尚未声明"),
    /* rewrite_permute.c (tiled_permute) */
    F(RW_PERM_ATOMIC_BESIDES, "line %u: an atomic on %s besides the permuted copy",
      "第 %u 行：除了排列复制之外还有对 %s 的原子操作"),
    F(RW_PERM_ACCESS_BESIDES, "line %u: an access to %s besides the permuted copy",
      "第 %u 行：除了排列复制之外还有对 %s 的访问"),
    F(RW_PERM_DESC, "kernel %s: shared-memory tiled permutation %s -> %s, tile [%d][%d + 1] (HK_TILE) of A = %s by D = %s (stride %s), grid-stride over tiles, any launch",
      "核函数 %s：基于共享内存分块的排列 %s -> %s，分块 [%d][%d + 1]（HK_TILE），A = %s，D = %s（步长 %s），按分块网格跨步，任意启动配置均可"),
    F(RW_PERM_DESC_READ_PERMUTED, "kernel %s: shared-memory tiled permutation %s -> %s (read permuted), tile [%d][%d + 1] (HK_TILE) of A = %s by D = %s (stride %s), grid-stride over tiles, any launch",
      "核函数 %s：基于共享内存分块的排列 %s -> %s（按排列顺序读取），分块 [%d][%d + 1]（HK_TILE），A = %s，D = %s（步长 %s），按分块网格跨步，任意启动配置均可"),
    F(RW_PERM_OTHER_GUARD, "line %u: a guard other than the bound on the flat index (idx < N) is in force on the write",
      "第 %u 行：写入处起作用的保护条件不是对平坦索引的边界检查（idx < N）"),
    F(RW_PERM_NO_BOUNDS, "line %u: the write has no bounds check idx < N on its flat index: the number of elements is not known",
      "第 %u 行：写入没有对其平坦索引做边界检查 idx < N：元素个数未知"),
    F(RW_PERM_SYNCTHREADS, "line %u: __syncthreads() in the kernel",
      "第 %u 行：核函数中有 __syncthreads()"),
    F(RW_PERM_READ_SECOND, "line %u: %s is read at a second index",
      "第 %u 行：%s 以第二个索引被读取"),
    F(RW_PERM_WRITTEN_BESIDES, "line %u: %s is written besides the permuted copy",
      "第 %u 行：除了排列复制之外 %s 还被写入"),
    F(RW_PERM_OUTPUT_READ, "line %u: the output %s is read",
      "第 %u 行：输出 %s 被读取"),
    F(RW_PERM_NOT_ONE_EACH, "line %u: not one read and one write: the kernel does more than move elements",
      "第 %u 行：不是一次读取加一次写入：核函数做的不只是搬移元素"),
    F(RW_PERM_COORD_TWICE, "line %u: a coordinate of the flat index appears in more than one term of the permuted index",
      "第 %u 行：平坦索引的某个坐标在排列后的索引中出现在多于一项中"),
    F(RW_PERM_EXTENT_SUM, "line %u: a coordinate's extent is a sum, not a product of sizes",
      "第 %u 行：某个坐标的范围是和，而不是各维大小的乘积"),
    F(RW_PERM_INNER_CONTIGUOUS, "line %u: the innermost coordinate (idx %% D) keeps stride 1 in the permuted index: reads and writes are contiguous already",
      "第 %u 行：最内层坐标（idx %% D）在排列后的索引中步长仍为 1：读写本来就是连续的"),
    F(RW_PERM_NO_INNER, "line %u: the permuted index has no innermost coordinate idx %% D of the flat index",
      "第 %u 行：排列后的索引中没有平坦索引的最内层坐标 idx %% D"),
    F(RW_PERM_NO_STRIDE1, "line %u: no coordinate of the flat index has stride 1 in the permuted index (a gather or shift, not a permutation)",
      "第 %u 行：平坦索引的任何坐标在排列后的索引中步长都不是 1（这是 gather 或平移，不是排列）"),
    F(RW_PERM_NO_EXTENT, "line %u: the innermost coordinate has no extent",
      "第 %u 行：最内层坐标没有范围"),
    F(RW_PERM_MODEL_CLASS, "the kernel model reads it as %s, not a permutation",
      "核函数模型把它读作 %s，而不是排列"),
    F(RW_PERM_ALREADY_TILED, "line %u: it already moves the elements through a __shared__ tile",
      "第 %u 行：它已经通过 __shared__ 分块搬移元素"),
    F(RW_PERM_NOT_COPY, "line %u: not a copy between two buffers",
      "第 %u 行：不是两个缓冲区之间的复制"),
    F(RW_PERM_NOT_FLAT, "line %u: neither side is indexed by the flat thread index blockIdx.x * blockDim.x + threadIdx.x",
      "第 %u 行：两侧都没有以平坦线程索引 blockIdx.x * blockDim.x + threadIdx.x 作为下标"),
    M(RW_PERM_NO_MODEL, "the kernel model cannot be built",
      "无法构建核函数模型"),
    F(RW_PERM_TYPES_DIFFER, "line %u: the input and output element types differ (%.100s, %.100s)",
      "第 %u 行：输入与输出的元素类型不同（%.100s，%.100s）"),
    F(RW_PERM_INDEX_USES, "line %u: the index or its bound uses something besides the flat index, scalar parameters and named constants (a thread id, a read, a local the model does not follow)",
      "第 %u 行：索引或其边界除了平坦索引、标量参数和具名常量之外还用到了其他东西（线程 id、读取，或模型无法跟踪的局部变量）"),
    /* rewrite_softmax.c (online_softmax) */
    M(RW_SM_BODY_LARGE, "the body is far larger than a softmax",
      "函数体远大于一个 softmax"),
    M(RW_SM_NO_MAX, "the row body does not start with a running maximum `float m = -INFINITY;`",
      "行处理代码不是以求最大值 `float m = -INFINITY;` 开头"),
    M(RW_SM_FIRST_LOOP, "the first column loop is not a maximum `m = fmaxf(m, x[c])`",
      "第一个列循环不是求最大值 `m = fmaxf(m, x[c])`"),
    M(RW_SM_NO_SUM, "no sum `float s = 0.0f;` after the maximum",
      "最大值之后没有累加 `float s = 0.0f;`"),
    M(RW_SM_SECOND_LOOP, "the second column loop is not a sum `s += expf(x[c] - m)`",
      "第二个列循环不是求和 `s += expf(x[c] - m)`"),
    M(RW_SM_DECL, "a declaration other than `float inv = 1.0f / s;` before the write loop",
      "写回循环之前有 `float inv = 1.0f / s;` 以外的声明"),
    M(RW_SM_LAST_NOT_WRITE, "the last statement is not the write loop `y[c] = expf(x[c] - m) / s`",
      "最后一条语句不是写回循环 `y[c] = expf(x[c] - m) / s`"),
    F(RW_SM_DESC, "kernel %s: softmax rows of %s -> %s with one warp per row, the row kept in registers when it fits (else max, sum and write passes), %s, shuffle reductions, float4 when cols %% 4 == 0",
      "核函数 %s：%s -> %s 的 softmax 各行改为每行一个 warp，能放下时整行保存在寄存器中（否则分为求最大值、求和与写回三遍），%s，用 shuffle 归约，cols %% 4 == 0 时使用 float4"),
    /* rewrite_stencil.c (stencil_window) */
    F(RW_ST_NO_OFFSETS, "line %u: no input is read at the output's element plus constant offsets along %s: nothing would be kept in registers",
      "第 %u 行：没有输入是在输出元素沿 %s 加常量偏移处读取的：没有可以保存在寄存器中的数据"),
    F(RW_ST_NO_OFFSETS_LOOP, "line %u: no input is read at the output's element plus constant offsets along %s (its reads move with a loop: windows over filter loops are not built): nothing would be kept in registers",
      "第 %u 行：没有输入是在输出元素沿 %s 加常量偏移处读取的（其读取随循环移动：不会为滤波器循环构建窗口）：没有可以保存在寄存器中的数据"),
    F(RW_ST_DESC_KEEP_GRID, "kernel %s: %s window, %d outputs per thread along %s (K = %d), radius %d, %d input(s) in %d register rows x %d columns; keep the spec's grid: the access at line %u has no bound on %s, so rows past the launched grid are skipped",
      "核函数 %s：%s 窗口，每个线程计算 %d 个输出（沿 %s，K = %d），半径 %d，%d 个输入放在 %d 行 x %d 列寄存器中；保持 spec 的网格：第 %u 行的访问在 %s 上没有边界，因此超出所启动网格的行会被跳过"),
    F(RW_ST_DESC_SHRINK, "kernel %s: %s window, %d outputs per thread along %s (K = %d), radius %d, %d input(s) in %d register rows x %d columns; the grid along %s may shrink by %d (the surplus rows fail the kernel's bound)",
      "核函数 %s：%s 窗口，每个线程计算 %d 个输出（沿 %s，K = %d），半径 %d，%d 个输入放在 %d 行 x %d 列寄存器中；沿 %s 的网格可以缩小 %d 倍（多出的行不满足核函数的边界检查）"),
    F(RW_ST_MODEL_CLASS, "the kernel model reads it as %s, not a stencil, convolution or pooling",
      "核函数模型把它读作 %s，而不是 stencil、卷积或池化"),
    F(RW_ST_WINDOW_FROM_MEMORY, "line %u: the window of %s is placed by values read from memory: no fixed neighbourhood that neighbouring outputs share",
      "第 %u 行：%s 的窗口位置由从内存读取的值决定：没有相邻输出共享的固定邻域"),
    M(RW_ST_SYNCTHREADS, "__syncthreads(): the threads of a block work together, and a block K times taller would change what they share",
      "__syncthreads()：线程块内的线程协同工作，线程块高度变为 K 倍会改变它们共享的内容"),
    F(RW_ST_SHARED, "line %u: a __shared__ array (%s): the kernel already tiles through shared memory",
      "第 %u 行：有 __shared__ 数组（%s）：核函数已经通过共享内存分块"),
    F(RW_ST_NO_WRITE, "line %u: no write of the output the model can follow",
      "第 %u 行：没有模型能跟踪的输出写入"),
    F(RW_ST_X_ONLY, "line %u: the output moves with x only (a 1-D stencil): coarsening along x would break the coalescing of every access",
      "第 %u 行：输出只沿 x 移动（一维 stencil）：沿 x 做线程粗化会破坏每次访问的合并访存"),
    F(RW_ST_ACCESS_INDEX, "line %u: the access of %s uses threadIdx.%s, blockIdx.%s or blockDim.%s other than as blockIdx.%s * blockDim.%s + threadIdx.%s",
      "第 %u 行：对 %s 的访问用到了 threadIdx.%s、blockIdx.%s 或 blockDim.%s，且不是以 blockIdx.%s * blockDim.%s + threadIdx.%s 的形式"),
    F(RW_ST_COND_INDEX, "line %u: the condition uses threadIdx.%s, blockIdx.%s or blockDim.%s other than as the global index along %s",
      "第 %u 行：条件用到了 threadIdx.%s、blockIdx.%s 或 blockDim.%s，且不是作为沿 %s 的全局索引"),
    F(RW_ST_ELEMENT_FORM, "line %u: the output's element is not coordinate * stride + rest along %s with a stride of parameters and constants",
      "第 %u 行：输出元素沿 %s 不是“坐标 * 步长 + 其余部分”的形式（步长由参数和常量构成）"),
    F(RW_ST_OUT_OF_SIGHT, "line %d: %s spells a thread or block index out of the kernel's sight: the coarsened thread's coordinate would not reach it",
      "第 %d 行：%s 以核函数看不到的方式写出了线程或线程块索引：粗化后线程的坐标无法到达它"),
    M(RW_ST_EMPTY, "the body is empty",
      "函数体为空"),
    F(RW_ST_UNROLLED_FIRST, "%s (its filter loops unrolled first: %s iterations)",
      "%s（其滤波器循环已先展开：%s 次迭代）"),
    F(RW_ST_UNROLLED_WITH, "%s (with its filter loops unrolled, %s iterations: %s)",
      "%s（展开其滤波器循环后，%s 次迭代：%s）"),
    /* -- end of rewrites, session 35 -- */
    /* -- kernel model, session 36 -- */
    /* kbuild.c: why the model cannot be built */
    M(KM_TOO_BIG_TEXT, "the text is over the analysis size limit", "源代码超过分析的大小上限"),
    M(KM_OVER_CAPS, "the kernel is over the model's caps", "核函数超出了模型的容量上限"),
    F(KM_NOT_ANALYSED, "the text could not be analysed: %s", "无法分析源代码：%s"),
    F(KM_NO_KERNEL, "no kernel named %s", "没有名为 %s 的核函数"),
    M(KM_PARSER_REFUSED, "the parser refused the text", "解析器无法解析该源代码"),
    F(KM_NO_BODY, "the body of kernel %s could not be found", "找不到核函数 %s 的函数体"),
    /* kclass.c: the near miss a class summary ends with, after " | " */
    F(KM_SUMMARY_NEAR, "near %s: line %u: %s", "接近 %s：第 %u 行：%s"),
    /* kclass.c: why a class almost fits */
    F(KM_HIST_NOT_ATOMIC, "%s[%s] += ... has a data-dependent index but is not atomic",
      "%s[%s] += ... 的索引依赖数据，但不是原子操作"),
    F(KM_EPILOGUE_TERM, "%s epilogue: the term %s of %s[...] is neither alpha*sum nor beta*%s",
      "%s 收尾部分：项 %s（属于 %s[...]）既不是 alpha*sum 也不是 beta*%s"),
    F(KM_TILE_WRITTEN_TWICE, "the tile %s is written more than once or updated (line %u): not one element copied per thread",
      "分块 %s 被写入多次或被更新（第 %u 行）：不是每个线程复制一个元素"),
    F(KM_TILE_NOT_SHARED, "%s, read in the k loop (line %u), is not a __shared__ tile the kernel fills",
      "%s（在 k 循环中读取，第 %u 行）不是核函数填充的 __shared__ 分块"),
    F(KM_TILE_FILLED_WITH, "the tile %s is filled with %s, not one element of a global matrix (a bounds-checked or converted load is not seen through)",
      "分块 %s 用 %s 填充，而不是全局矩阵的一个元素（带边界检查或类型转换的读取无法看穿）"),
    F(KM_TILE_NOT_ONCE, "the tile %s is not filled once per iteration of the loop around the k loop (line %u)",
      "分块 %s 不是在 k 循环（第 %u 行）外层循环的每次迭代中填充一次"),
    F(KM_TILE_NOT_ONCE_GUARDED, "the tile %s is not filled once per iteration of the loop around the k loop (line %u): its load is guarded (ragged tiles are not seen through)",
      "分块 %s 不是在 k 循环（第 %u 行）外层循环的每次迭代中填充一次：它的读取带有条件保护（无法看穿不完整的分块）"),
    F(KM_TILE_FILLED_AFTER, "the tile %s is filled (line %u) after the k loop (line %u) reads it: each iteration reads the previous tile",
      "分块 %s 的填充（第 %u 行）在 k 循环（第 %u 行）读取它之后：每次迭代读到的是上一个分块"),
    F(KM_TILE_FILLED_AT, "the tile %s is filled at %s[%s], not at [threadIdx.r][threadIdx.c] of two thread axes",
      "分块 %s 在 %s[%s] 处填充，而不是在两个线程维度的 [threadIdx.r][threadIdx.c] 处"),
    F(KM_TILE_SIZE_NOT_MULTIPLE, "the tile %s's declared size is not a multiple of its row length",
      "分块 %s 声明的大小不是其行长度的整数倍"),
    F(KM_TILE_ELEMENT, "%s[%s] in the k loop is not the tile's element [thread's own row][k] or [k][thread's own column]",
      "k 循环中的 %s[%s] 不是分块的元素 [线程自己的行][k] 或 [k][线程自己的列]"),
    F(KM_K_LOOP_NOT_WHOLE_ROW, "the k loop (line %u) does not run over the whole tile %s (0 to its row length, step 1)",
      "k 循环（第 %u 行）没有遍历整个分块 %s（从 0 到其行长度，步长 1）"),
    F(KM_K_LOOP_NOT_WHOLE_ROWS, "the k loop (line %u) does not run over the whole tile %s (0 to its rows, step 1)",
      "k 循环（第 %u 行）没有遍历整个分块 %s（从 0 到其行数，步长 1）"),
    F(KM_TILE_NO_SYNC, "the tile %s is read without __syncthreads() between its fill and its use and before the next fill",
      "分块 %s 在填充与使用之间、以及下一次填充之前没有 __syncthreads() 就被读取"),
    F(KM_TILE_FILL_NOT_AFFINE, "%s[%s], the tile %s's fill, is not affine in the thread ids",
      "%s[%s]（分块 %s 的填充）不是线程索引的仿射函数"),
    F(KM_TILE_BLOCKS_DIFFER, "the tiles need blocks of different extents along thread axis %c",
      "各分块需要的线程块在线程维度 %c 上的大小不同"),
    F(KM_TILE_NO_TRIP, "the tile loop (line %u) or the k loop (line %u) has no trip count the model can state",
      "分块循环（第 %u 行）或 k 循环（第 %u 行）没有模型能确定的迭代次数"),
    F(KM_TILE_INDEX_NOT_AFFINE, "%s's index is not affine in the tile loop's counter (line %u)",
      "%s 的索引不是分块循环计数器（第 %u 行）的仿射函数"),
    F(KM_TILE_MOVES, "the tile loop (line %u) moves %s by %s per tile, not by the %s its tile spans: tiles are skipped or read twice",
      "分块循环（第 %u 行）每个分块把 %s 移动 %s，而不是其分块跨越的 %s：有分块被跳过或被读取两次"),
    F(KM_K_LOOP_STEP, "the k loop (line %u) steps by more than 1", "k 循环（第 %u 行）的步长大于 1"),
    F(KM_K_NOT_AFFINE, "%s[%s] is not affine in the k loop's variable %s (loop at line %u)",
      "%s[%s] 不是 k 循环变量 %s（循环在第 %u 行）的仿射函数"),
    F(KM_WRITTEN_IN_TILE_LOOP, "%s is written inside the tile loop (line %u): each tile's partial sum, not the whole product",
      "%s 在分块循环（第 %u 行）内被写入：写入的是每个分块的部分和，而不是完整的乘积"),
    F(KM_ROWS_COLUMNS, "%s[%s] does not separate rows and columns", "%s[%s] 没有区分行和列"),
    F(KM_NOT_INDEX_ROWS, "%s[%s] does not index %s's rows as %s does",
      "%s[%s] 对 %s 的行的索引方式与 %s 不一致"),
    F(KM_NOT_INDEX_COLUMNS, "%s[%s] does not index %s's columns as %s does",
      "%s[%s] 对 %s 的列的索引方式与 %s 不一致"),
    F(KM_NO_LEADING_DIM, "%s[%s] has no leading dimension", "%s[%s] 没有主维度（leading dimension）"),
    F(KM_SOFTMAX_NO_MAX, "the sum of exponentials (line %u) has no row maximum subtracted",
      "指数和（第 %u 行）没有减去行最大值"),
    F(KM_NORM_SQRT_NOTHING, "%s[...] is scaled by a square root of nothing the kernel sums",
      "%s[...] 按某个平方根缩放，但被开方的量不是核函数求和得到的"),
    F(KM_TILED_PRODUCT, "%s sums products of the __shared__ tiles %s and %s over the loop at line %u: a tiled matrix product, not a reduction",
      "%s 对 __shared__ 分块 %s 与 %s 的乘积求和（循环在第 %u 行）：这是分块矩阵乘法，不是归约"),
    F(KM_MAP_NOTHING_GLOBAL, "%s[...] combines %s over the loop at line %u but no input is split among the outputs (nothing global is read in the loop): a map with an inner loop, not a reduction",
      "%s[...] 合并 %s（循环在第 %u 行），但没有输入被划分到各个输出（循环中没有读取全局数据）：这是带内层循环的映射，不是归约"),
    F(KM_MAP_GATHERED, "%s[...] combines %s over the loop at line %u but no input is split among the outputs (%s[...] is gathered through a value read from memory): a map with an inner loop, not a reduction",
      "%s[...] 合并 %s（循环在第 %u 行），但没有输入被划分到各个输出（%s[...] 通过从内存读取的值间接访问）：这是带内层循环的映射，不是归约"),
    F(KM_MAP_SHARED, "%s[...] combines %s over the loop at line %u but no input is split among the outputs (%s[...] is shared by outputs that differ in a coordinate its index does not follow): a map with an inner loop, not a reduction",
      "%s[...] 合并 %s（循环在第 %u 行），但没有输入被划分到各个输出（%s[...] 被多个输出共用，这些输出的某个坐标不同，而它的索引不随该坐标变化）：这是带内层循环的映射，不是归约"),
    F(KM_SAME_STRIDE, "%s[%s] = %s[%s] moves elements but both sides have the same stride in threadIdx.x",
      "%s[%s] = %s[%s] 搬移元素，但两侧在 threadIdx.x 上的步长相同"),
    F(KM_NOT_GRID_STRIDE, "%s[...] is accessed in a loop (line %u) other than a grid-stride loop",
      "%s[...] 在网格跨步循环以外的循环（第 %u 行）中被访问"),
    M(SAID_SEMI, "; ", "；"),
    /* rewrite_reduce.c (warp_reduce, block_reduce's fallback) */
    M(RW_RED_NOT_1D, "the kernel does not have one 1D index over x", "核函数没有沿 x 方向的一维索引"),
    M(RW_RED_STMTS_BEFORE_CHECK, "statements besides the index declaration come before the bounds check",
      "边界检查之前除了索引声明还有其他语句"),
    M(RW_RED_GUARDED_NOT_ONE_ATOMIC, "the guarded statement is not one atomic", "受保护的语句不是单个原子操作"),
    M(RW_RED_COND_SIDE_EFFECTS, "the condition has side effects", "条件表达式有副作用"),
    M(RW_RED_NOT_ADD_MAX_MIN, "the guarded statement is not atomicAdd/atomicMax/atomicMin",
      "受保护的语句不是 atomicAdd/atomicMax/atomicMin"),
    M(RW_RED_NOT_CALL2, "the guarded statement is not one two-argument atomic call",
      "受保护的语句不是单个双参数的原子调用"),
    M(RW_RED_TARGET_NOT_PARAM, "the atomic's target is not a pointer parameter (`out`, `&out[k]`, `out + k`)",
      "原子操作的目标不是指针参数（`out`、`&out[k]`、`out + k`）"),
    M(RW_RED_TARGET_INDEX, "the atomic's target depends on the index: a scatter (histogram?), not a reduction",
      "原子操作的目标依赖于索引：这是分散写入（直方图？），不是归约"),
    M(RW_RED_TARGET_LOCAL, "the atomic's target uses a local variable", "原子操作的目标用到了局部变量"),
    M(RW_RED_VALUE_SIDE_EFFECTS, "the atomic's value has side effects", "原子操作的值有副作用"),
    M(RW_RED_TREE_DECL, "a declaration in the tree reduction is not the thread or element index",
      "树形归约中有一个声明既不是线程索引也不是元素索引"),
    M(RW_RED_LOADED_SIDE_EFFECTS, "the loaded value has side effects", "读取的值有副作用"),
    M(RW_RED_TREE_LOOP, "the loop is not the tree `for (s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sdata[tid] += sdata[tid + s]; __syncthreads(); }`",
      "该循环不是树形归约 `for (s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sdata[tid] += sdata[tid + s]; __syncthreads(); }`"),
    M(RW_RED_BLOCK_RESULT_WRITE, "the block result is not written with `if (tid == 0) atomicAdd(out, sdata[0]);` (a per-block partial output depends on the grid: not rewritten)",
      "线程块的结果不是用 `if (tid == 0) atomicAdd(out, sdata[0]);` 写出的（按线程块输出的部分结果取决于网格：不改写）"),
    M(RW_RED_BLOCK_RESULT, "the block result is not `atomicAdd(out, sdata[0])`",
      "线程块的结果不是 `atomicAdd(out, sdata[0])`"),
    M(RW_RED_OUTSIDE_TREE, "a statement outside the tree-reduction pattern", "有语句不属于树形归约的模式"),
    M(RW_RED_NO_BLOCK_ATOMIC, "the tree reduction does not end with one atomic per block",
      "树形归约的结尾不是每个线程块一次原子操作"),
    F(RW_RED_MODEL_CLASSES, "the kernel model classes it %s, not a reduction", "核函数模型把它归为 %s，而不是归约"),
    F(RW_RED_BY_HOW, "line %u: a %s reduction by %s: only a global one by per-thread atomics into one location becomes a register",
      "第 %u 行：%s 归约，方式为%s：只有每个线程以原子操作归约到同一位置的全局归约才能改为寄存器"),
    M(RW_RED_HOW_NONE, "no method", "无方法"),
    M(RW_RED_HOW_LOOP, "a loop", "循环"),
    M(RW_RED_HOW_ATOMICS, "atomics", "原子操作"),
    M(RW_RED_HOW_TREE, "a tree", "树形归约"),
    M(RW_RED_HOW_SERIAL, "one thread", "单个线程"),
    M(RW_RED_HOW_OTHER, "another method", "其他方法"),
    F(RW_RED_OP, "line %u: a %s reduction (only sum, max and min)", "第 %u 行：%s 归约（只支持 sum、max 和 min）"),
    F(RW_RED_SECOND_ATOMIC, "line %u: a second atomic: one atomic per thread is what becomes a register",
      "第 %u 行：第二个原子操作：只有每个线程一个原子操作才能改为寄存器"),
    M(RW_RED_NO_ATOMIC, "no atomic in the kernel's own text (one in a macro or a called function is not rewritten)",
      "核函数自身的代码中没有原子操作（宏或被调用函数中的原子操作不改写）"),
    F(RW_RED_ATOMIC_KIND, "line %u: the atomic is not atomicAdd, atomicMax or atomicMin",
      "第 %u 行：该原子操作不是 atomicAdd、atomicMax 或 atomicMin"),
    F(RW_RED_ATOMIC_NOT_STMT, "line %u: the atomic is not a statement of its own (its old value used, or a cast)",
      "第 %u 行：该原子操作不是独立的语句（用到了它返回的旧值，或有类型转换）"),
    F(RW_RED_ATOMIC_NOT_CALL2, "line %u: the atomic is not a two-argument call", "第 %u 行：该原子操作不是双参数调用"),
    F(RW_RED_ATOMIC_TARGET_NOT_PARAM, "line %u: the atomic's target is not a pointer parameter (`out`, `&out[k]`, `out + k`)",
      "第 %u 行：原子操作的目标不是指针参数（`out`、`&out[k]`、`out + k`）"),
    F(RW_RED_ATOMIC_TARGET_VARIES, "line %u: the atomic's target depends on %s, which is not an unchanged parameter: not one location for every thread",
      "第 %u 行：原子操作的目标依赖于 %s，而它不是保持不变的参数：不是所有线程共用的同一位置"),
    F(RW_RED_TARGET_USED, "line %u: %s is used besides the atomic: it would see a partial sum",
      "第 %u 行：%s 在原子操作之外还被使用：它会看到部分和"),
    F(RW_RED_NOT_MODELS_OP, "line %u: the atomic is not the model's %s", "第 %u 行：该原子操作不是模型识别出的 %s"),
    F(RW_RED_NO_IDENTITY, "line %u: the accumulator type %s has no known %s identity (float, double, int, unsigned, long long, unsigned long long)",
      "第 %u 行：累加器类型 %s 没有已知的 %s 单位元（float、double、int、unsigned、long long、unsigned long long）"),
    F(RW_RED_NO_IDENTITY_T, "line %u: the accumulator type %s has no known %s identity (float, double, int, unsigned, long long, unsigned long long, a template parameter)",
      "第 %u 行：累加器类型 %s 没有已知的 %s 单位元（float、double、int、unsigned、long long、unsigned long long、模板参数）"),
    F(RW_RED_DESC_MODEL, "kernel %s: %s %s reduction (the kernel model's reading, line %u) -> the kernel's own code adds into a register, __shfl_down_sync warp reduction, one shared slot per warp, one %s per block",
      "核函数 %s：%s %s 归约（核函数模型的识别结果，第 %u 行）-> 核函数自身的代码改为累加到寄存器，用 __shfl_down_sync 做 warp 归约，每个 warp 一个共享内存槽，每个线程块一次 %s"),
    M(RW_RED_BODY_TOO_BIG, "the body is far larger than a reduction", "函数体远大于一个归约"),
    M(RW_RED_ACC_TYPE, "the accumulator type is not float, double, int, unsigned, long long or unsigned long long",
      "累加器类型不是 float、double、int、unsigned、long long 或 unsigned long long"),
    F(RW_RED_DESC_ATOMICS, "kernel %s: %s reduction (per-thread atomics) -> grid-stride register accumulation, __shfl_down_sync warp reduction, one shared slot per warp, one %s per block",
      "核函数 %s：%s 归约（每线程原子操作）-> 以网格跨步方式在寄存器中累加，用 __shfl_down_sync 做 warp 归约，每个 warp 一个共享内存槽，每个线程块一次 %s"),
    F(RW_RED_DESC_ATOMICS_VEC, "kernel %s: %s reduction (per-thread atomics) -> grid-stride register accumulation (float4 loads when aligned), __shfl_down_sync warp reduction, one shared slot per warp, one %s per block",
      "核函数 %s：%s 归约（每线程原子操作）-> 以网格跨步方式在寄存器中累加（对齐时用 float4 读取），用 __shfl_down_sync 做 warp 归约，每个 warp 一个共享内存槽，每个线程块一次 %s"),
    F(RW_RED_DESC_TREE, "kernel %s: %s reduction (shared-memory tree) -> grid-stride register accumulation, __shfl_down_sync warp reduction, one shared slot per warp, one %s per block",
      "核函数 %s：%s 归约（共享内存树形归约）-> 以网格跨步方式在寄存器中累加，用 __shfl_down_sync 做 warp 归约，每个 warp 一个共享内存槽，每个线程块一次 %s"),
    F(RW_RED_DESC_TREE_VEC, "kernel %s: %s reduction (shared-memory tree) -> grid-stride register accumulation (float4 loads when aligned), __shfl_down_sync warp reduction, one shared slot per warp, one %s per block",
      "核函数 %s：%s 归约（共享内存树形归约）-> 以网格跨步方式在寄存器中累加（对齐时用 float4 读取），用 __shfl_down_sync 做 warp 归约，每个 warp 一个共享内存槽，每个线程块一次 %s"),
    /* rewrite_privhist.c (privatized_histogram) */
    F(RW_PH_NOT_ATOMIC_ADD, "line %u: %s is accessed other than by atomicAdd", "第 %u 行：%s 有 atomicAdd 以外的访问"),
    F(RW_PH_ALREADY_SHARED, "line %u: the bins are already counted in __shared__ memory",
      "第 %u 行：各个桶已经在 __shared__ 内存中计数"),
    F(RW_PH_NO_NAME, "line %u: the histogram has no name the rewrite can use", "第 %u 行：直方图没有代码改写可用的名字"),
    F(RW_PH_BINS_UNKNOWN, "line %u: the bin count is not known (a constant, a template parameter or a parameter)",
      "第 %u 行：桶的数量未知（应为常量、模板参数或参数）"),
    F(RW_PH_NOT_POINTER, "line %u: the histogram %s is not a pointer parameter", "第 %u 行：直方图 %s 不是指针参数"),
    M(RW_PH_BODY_TOO_BIG, "the body is far larger than a histogram", "函数体远大于一个直方图"),
    F(RW_PH_USED_OTHERWISE, "line %u: %s is used other than as `&%s[bin]` or `atomicAdd(%s + bin, ...)`",
      "第 %u 行：%s 除了 `&%s[bin]` 或 `atomicAdd(%s + bin, ...)` 之外还有其他用法"),
    M(RW_PH_TOO_MANY_BINS, "the bin count does not fit the shared-memory budget (32 KiB)",
      "桶的数量超出了共享内存预算（32 KiB）"),
    F(RW_PH_DESC_VIEW, "kernel %s: privatized histogram of %s, %s shared %s counters per block (HK_BINS) that the kernel's own code counts into, other bins in global memory, one atomic per non-zero bin per block",
      "核函数 %s：%s 的私有化直方图，每个线程块 %s 个共享内存中的 %s 计数器（HK_BINS），由核函数自身的代码计数，其余的桶留在全局内存，每个线程块对每个非零桶做一次原子操作"),
    F(RW_PH_DESC_VIEW_CAPPED, "kernel %s: privatized histogram of %s, %s shared %s counters per block (HK_BINS, capped by the parameter) that the kernel's own code counts into, other bins in global memory, one atomic per non-zero bin per block",
      "核函数 %s：%s 的私有化直方图，每个线程块 %s 个共享内存中的 %s 计数器（HK_BINS，以参数为上限），由核函数自身的代码计数，其余的桶留在全局内存，每个线程块对每个非零桶做一次原子操作"),
    M(RW_PH_COUNTER_TYPE, "the counter type is not unsigned int, int, unsigned long long, float or double",
      "计数器类型不是 unsigned int、int、unsigned long long、float 或 double"),
    M(RW_PH_INDEX_TOO_LONG, "the index or bound expression is too long", "索引或边界表达式过长"),
    F(RW_PH_DESC_GIVEN, "kernel %s: privatized histogram of %s, %ld shared %s counters per block (HK_BINS, given), one atomic per bin per block, grid-stride over %s",
      "核函数 %s：%s 的私有化直方图，每个线程块 %ld 个共享内存中的 %s 计数器（HK_BINS，由参数给定），每个线程块对每个桶做一次原子操作，对 %s 做网格跨步循环"),
    F(RW_PH_DESC_GUESSED, "kernel %s: privatized histogram of %s, %ld shared %s counters per block (HK_BINS, a guess: other bins go to global memory), one atomic per bin per block, grid-stride over %s",
      "核函数 %s：%s 的私有化直方图，每个线程块 %ld 个共享内存中的 %s 计数器（HK_BINS，为猜测值：其余的桶写入全局内存），每个线程块对每个桶做一次原子操作，对 %s 做网格跨步循环"),
    F(RW_PH_DESC_INFERRED, "kernel %s: privatized histogram of %s, %ld shared %s counters per block (HK_BINS, inferred), one atomic per bin per block, grid-stride over %s",
      "核函数 %s：%s 的私有化直方图，每个线程块 %ld 个共享内存中的 %s 计数器（HK_BINS，由推断得出），每个线程块对每个桶做一次原子操作，对 %s 做网格跨步循环"),
    /* rewrite_recognize.c: the shared matchers (bounds check, histogram, rows, GEMM/GEMV) */
    M(RW_REC_BODY_UNREADABLE, "the kernel body could not be read",
      "无法读取核函数体"),
    M(RW_REC_STMT_BEFORE_CHECK, "a statement that is not a declaration comes before the bounds check",
      "边界检查之前有一条不是声明的语句"),
    M(RW_REC_TWO_INDEX_DECLS, "two index declarations of the same axis",
      "同一维度上有两个索引声明"),
    M(RW_REC_NO_BOUNDS_CHECK, "no bounds check `if (i < n)` or `if (i >= n) return;` after the index declarations",
      "索引声明之后没有边界检查 `if (i < n)` 或 `if (i >= n) return;`"),
    M(RW_REC_UNBALANCED_CHECK, "unbalanced bounds check",
      "边界检查的括号不配对"),
    M(RW_REC_CHECK_ELSE, "the bounds check has an else branch",
      "边界检查带有 else 分支"),
    M(RW_REC_EARLY_RETURN_FORM, "the early return is not `if (i >= n) return;` (one `>=` per index, joined by ||)",
      "提前返回不是 `if (i >= n) return;` 的形式（每个索引一个 `>=`，用 || 连接）"),
    M(RW_REC_CHECK_FORM, "the bounds check is not `if (i < n)` (one `<` per index, joined by &&)",
      "边界检查不是 `if (i < n)` 的形式（每个索引一个 `<`，用 && 连接）"),
    M(RW_REC_CHECK_MIXES, "the bounds check mixes && and ||",
      "边界检查混用了 && 和 ||"),
    M(RW_REC_INDEX_UNBOUNDED, "an index has no bound in the bounds check",
      "有一个索引在边界检查中没有上界"),
    M(RW_REC_STMTS_AFTER_CHECK, "statements follow the bounds check block",
      "边界检查块之后还有语句"),
    M(RW_REC_NOTHING_GUARDED, "nothing is guarded by the bounds check",
      "边界检查没有保护任何语句"),
    F(RW_REC_NO_GRID_STRIDE, "the body handles one element per thread and cannot be put on a grid-stride loop (%s), so the rewrite's launch on a smaller grid would leave elements out",
      "函数体每个线程处理一个元素，且无法改为网格跨步循环（%s），因此代码改写以更小的网格启动时会漏掉元素"),
    F(RW_REC_ON_GRID_STRIDE, "%s (on a grid-stride loop first: the body handled one element per thread)",
      "%s（先改为网格跨步循环：原函数体每个线程处理一个元素）"),
    F(RW_REC_DOES_NOT_PARSE, "rewrite refused, its result does not parse cleanly: %s",
      "代码改写被拒绝，其结果无法干净地解析：%s"),
    M(RW_REC_HIST_NOT_ATOMIC, "the guarded statement is not one atomicAdd(&hist[bin], value)",
      "受保护的语句不是单个 atomicAdd(&hist[bin], value)"),
    M(RW_REC_HIST_TARGET, "the atomic's target is not `&hist[bin]` or `hist + bin` with hist a pointer parameter",
      "原子操作的目标不是 `&hist[bin]` 或 `hist + bin`（hist 为指针参数）"),
    M(RW_REC_HIST_BIN_CONST, "the bin does not depend on the index: a reduction, not a histogram",
      "桶不依赖于索引：这是归约，不是直方图"),
    M(RW_REC_HIST_BIN_LOCAL, "the bin expression uses a local variable",
      "桶的表达式用到了局部变量"),
    M(RW_REC_HIST_VALUE, "the added value has side effects or reads the histogram",
      "加上的值有副作用或读取了直方图"),
    M(RW_REC_HIST_TOO_LONG, "the bin, value or bound expression is too long",
      "桶、值或边界表达式过长"),
    M(RW_REC_ROWS_NOT_1D, "the kernel does not have one 1D row index over x",
      "核函数没有沿 x 方向的一维行索引"),
    M(RW_REC_ROWS_MORE_STMTS, "the row body has more statements than the pattern",
      "行处理代码的语句比该模式多"),
    M(RW_REC_ROWS_LOOP_FORM, "a loop is not `for (int c = 0; c < cols; c++)`",
      "有循环不是 `for (int c = 0; c < cols; c++)` 的形式"),
    M(RW_REC_ROWS_LOOP_STEP, "a loop does not step its column by one",
      "有循环的列步长不是 1"),
    M(RW_REC_ROWS_BOUNDS_DIFFER, "the column loops have different bounds",
      "各列循环的边界不同"),
    M(RW_REC_ROWS_LOOP_NESTED, "a column loop holds a nested loop, a return or a barrier",
      "有列循环包含嵌套循环、return 或同步屏障"),
    M(RW_REC_ROWS_NO_LOOP, "no column loop",
      "没有列循环"),
    M(RW_REC_ROWS_POINTER, "a pointer declared in the row body is not `param + row * cols`",
      "行处理代码中声明的指针不是 `param + row * cols`"),
    M(RW_REC_ROWS_TOO_MANY_NAMES, "too many names",
      "名字过多"),
    M(RW_REC_ROWS_LAST_WRITE, "the last column loop does not write an element of a pointer parameter",
      "最后一个列循环没有写入指针参数的元素"),
    M(RW_REC_ROWS_FIRST_READ, "the first column loop does not read an input row",
      "第一个列循环没有读取输入行"),
    M(RW_REC_ROWS_THIRD_MATRIX, "a row pointer into a third matrix",
      "有指向第三个矩阵的行指针"),
    M(RW_REC_ROWS_INPUT_FLOAT, "the input is not float",
      "输入不是 float"),
    M(RW_REC_ROWS_OUTPUT_FLOAT, "the output is not float",
      "输出不是 float"),
    M(RW_REC_MM_NO_ACC, "the guarded body does not start with an accumulator `float acc = 0.0f;`",
      "受保护的代码不是以累加器 `float acc = 0.0f;` 开头"),
    M(RW_REC_MM_NO_K_LOOP, "the accumulator is not followed by `for (int k = 0; k < K; k++)`",
      "累加器之后不是 `for (int k = 0; k < K; k++)`"),
    M(RW_REC_MM_K_STEP, "the k loop does not step by one to a fixed bound",
      "k 循环不是以步长 1 走到固定的上界"),
    M(RW_REC_MM_K_BOUND_LONG, "the k loop's bound is too long",
      "k 循环的上界过长"),
    M(RW_REC_MM_K_BODY, "the k loop is not `acc += A[...] * B[...];` over two pointer parameters",
      "k 循环不是对两个指针参数的 `acc += A[...] * B[...];`"),
    M(RW_REC_MM_MEM_BODY, "the guarded body is not `C[...] *= s;` (optional) then a k loop `C[...] += A[...] * B[...];` into that element of C (scalar factors allowed), over three pointer parameters",
      "受保护的代码不是（可选的）`C[...] *= s;` 之后接一个累加到 C 的同一元素的 k 循环 `C[...] += A[...] * B[...];`（允许标量因子），且涉及三个指针参数"),
    M(RW_REC_MM_BODY_TOO_BIG, "the body is far larger than a GEMM",
      "函数体远大于一个 GEMM"),
    M(RW_REC_MM_INDICES, "the indices are not a GEMM's (row from .y, column from .x, batch from .z) or a GEMV's (row from .x)",
      "索引既不是 GEMM 的（行来自 .y，列来自 .x，批次来自 .z），也不是 GEMV 的（行来自 .x）"),
    M(RW_REC_MM_STMT_BEFORE_ACC, "a statement before the accumulator is not `const float *a = A + b * STRIDE;`",
      "累加器之前有语句不是 `const float *a = A + b * STRIDE;`"),
    M(RW_REC_MM_TOO_MANY_LOCALS, "more matrix locals than a batched GEMM has",
      "矩阵局部变量比批量 GEMM 的多"),
    M(RW_REC_MM_A_ROW_J, "A is not read as A[row * lda + j] (row-major, unit stride along j)",
      "A 不是按 A[row * lda + j] 读取（行主序，沿 j 的步长为 1）"),
    M(RW_REC_MM_A_ROW_K, "A is not read as A[row * lda + k] (row-major, unit stride along k)",
      "A 不是按 A[row * lda + k] 读取（行主序，沿 k 的步长为 1）"),
    M(RW_REC_MM_X_UNIT, "x is not read as x[j] (unit stride)",
      "x 不是按 x[j] 读取（步长为 1）"),
    M(RW_REC_MM_B_ROW, "B is not read as B[k * ldb + col] (row-major, unit stride along the column)",
      "B 不是按 B[k * ldb + col] 读取（行主序，沿列的步长为 1）"),
    M(RW_REC_MM_ONE_STORE, "the k loop is not followed by exactly one store `C[...] = ...;` and nothing else",
      "k 循环之后不是恰好一条写入 `C[...] = ...;` 而没有其他语句"),
    M(RW_REC_MM_THIRD_POINTER, "the result is not stored to a third, writable pointer parameter",
      "结果没有写入第三个可写的指针参数"),
    M(RW_REC_MM_STORE_SIDE_EFFECT, "the stored value has a side effect",
      "写入的值有副作用"),
    M(RW_REC_MM_Y_ROW, "y is not written as y[row]",
      "y 不是按 y[row] 写入"),
    M(RW_REC_MM_C_ROW, "C is not written as C[row * ldc + col] (row-major, one element per thread)",
      "C 不是按 C[row * ldc + col] 写入（行主序，每个线程一个元素）"),
    M(RW_REC_MM_STORE_GEMV, "the stored value is not `[alpha *] acc [+ beta * y[row]]`",
      "写入的值不是 `[alpha *] acc [+ beta * y[row]]`"),
    M(RW_REC_MM_STORE_GEMM, "the stored value is not `[alpha *] acc [+ beta * C[row * ldc + col]]`",
      "写入的值不是 `[alpha *] acc [+ beta * C[row * ldc + col]]`"),
    M(RW_REC_MM_ELEM_TYPE, "the matrices and the accumulator do not share one element type",
      "各矩阵与累加器的元素类型不一致"),
    M(RW_REC_MM_SIZE_TOO_LONG, "a size expression is too long",
      "有规模表达式过长"),
    M(RW_REC_PER_ELEM_THREADIDX, "the per-element code reads threadIdx or blockIdx, which are not the element's once a thread handles several elements",
      "逐元素代码读取了 threadIdx 或 blockIdx，而一个线程处理多个元素后它们就不再对应该元素"),
    M(RW_REC_PER_ELEM_LOCAL, "the per-element code reads a local computed from threadIdx or blockIdx before it, which is not the element's once a thread handles several elements",
      "逐元素代码读取了此前由 threadIdx 或 blockIdx 算出的局部变量，而一个线程处理多个元素后它就不再对应该元素"),
    F(RW_REC_SIZE_NOT_KNOWN, "line %u: %s is not known from the kernel (no guard or loop bounds it) and the launch does not give it exactly: its index %s is not the global thread index blockIdx.a*blockDim.a + threadIdx.a along one axis (nor R times it plus a 0..R-1 loop's counter), so the grid need not cover 0..%s-1 exactly once",
      "第 %u 行：%s 无法从核函数得知（没有条件或循环限定它），启动配置也没有准确给出：它的索引 %s 不是沿某一维的全局线程索引 blockIdx.a*blockDim.a + threadIdx.a（也不是它的 R 倍加上一个 0..R-1 循环的计数器），因此网格不一定恰好覆盖 0..%s-1 各一次"),
    /* rewrite_period.c (periodic_trips; its grid-stride loop reader is channel_chunks' and staged_gather's too) */
    M(RW_C_DIVISOR, "divisor",
      "除数"),
    M(RW_C_LOOP_MACRO, "loop macro",
      "循环宏"),
    F(RW_PT_TOO_MANY_FACTORS, "more than %d divisor factors",
      "除数因子超过 %d 个"),
    F(RW_PT_DIVISOR_NOT_INT, "the divisor `%.*s` is not an integer",
      "除数 `%.*s` 不是整数"),
    F(RW_PT_DIVISOR_NOT_PARAM, "the divisor `%.*s` is not a scalar parameter or an integer literal (it must stay the same for the whole launch)",
      "除数 `%.*s` 不是标量参数或整数字面量（它必须在整个启动期间保持不变）"),
    F(RW_PT_LOCAL_HIDES, "a local `%.*s` hides the parameter",
      "局部变量 `%.*s` 遮蔽了该参数"),
    F(RW_PT_DIVISOR_WRITTEN, "the divisor `%.*s` is written in the kernel",
      "除数 `%.*s` 在核函数中被写入"),
    M(RW_PT_DIVISOR_NOT_PRODUCT, "a divisor that is not a product of parameters and integer literals",
      "有除数不是参数与整数字面量的乘积"),
    F(RW_PT_DIV_OPERAND, "`%.*s / ...`: the divisor is not a parameter, a literal or a parenthesised product of them",
      "`%.*s / ...`：除数不是参数、字面量或它们加括号的乘积"),
    F(RW_PT_MOD_OPERAND, "`%.*s %% ...`: the modulus is not a parameter, a literal or a parenthesised product of them",
      "`%.*s %% ...`：模数不是参数、字面量或它们加括号的乘积"),
    F(RW_PT_COUNTER_USE, "the counter `%.*s` is used other than as `%.*s %% A` or `%.*s / A %% B`: that value grows with the counter, the trips do not repeat",
      "计数器 `%.*s` 除了 `%.*s %% A` 或 `%.*s / A %% B` 之外还有其他用法：该值随计数器增长，各次迭代不会重复"),
    F(RW_PT_BINDS_FIRST, "`%.*s` before the coordinate of `%.*s` binds to the counter first",
      "`%.*s` 位于 `%.*s` 的坐标之前，先与计数器结合"),
    F(RW_PT_NOT_LOCAL, "`%.*s` of something that is not a local of the loop",
      "`%.*s` 作用于不是循环局部变量的对象"),
    F(RW_PT_CHANGES_COUNTER, "the body changes its counter `%.*s`",
      "循环体修改了它的计数器 `%.*s`"),
    F(RW_PT_MEMBER_STORE, "a store to a member (`...%.*s%.*s`)",
      "写入了成员（`...%.*s%.*s`）"),
    F(RW_PT_CARRIED, "`%.*s` is declared outside the loop and written in it: a trip would carry it to the next",
      "`%.*s` 在循环外声明、在循环内写入：一次迭代会把它带到下一次"),
    F(RW_PT_STORE_UNFOLLOWED, "a store the scan cannot follow (`%.*s` before `%.*s`)",
      "扫描无法跟踪的写入（`%.*s` 在 `%.*s` 之前）"),
    M(RW_PT_STORE_EXPR, "a store through an expression, not a named buffer",
      "通过表达式而不是具名缓冲区写入"),
    F(RW_PT_STORE_OTHER, "a store to `%.*s`, which is neither a pointer parameter nor a local of the loop",
      "写入了 `%.*s`，它既不是指针参数也不是循环的局部变量"),
    F(RW_PT_COMBINES, "`%.*s[...] %.*s`: a repeated trip would combine again (only plain `=` stores repeat to the same result)",
      "`%.*s[...] %.*s`：重复的迭代会再次累积（只有普通的 `=` 写入重复后结果不变）"),
    F(RW_PT_TOO_MANY_BUFFERS, "more than %d buffers",
      "缓冲区超过 %d 个"),
    F(RW_PT_WRITES_READS, "the loop writes `%s`, which it reads: a repeated trip may read what another wrote",
      "循环写入了它也读取的 `%s`：重复的迭代可能读到另一次迭代写入的值"),
    F(RW_PT_LAUNCH_ALIASES, "the launch at line %u passes `%s` as both %s and %s: a repeated trip may read what another wrote",
      "第 %u 行的启动把 `%s` 同时作为 %s 和 %s 传入：重复的迭代可能读到另一次迭代写入的值"),
    F(RW_PT_THREAD_DEPENDENT, "`%.*s` in the loop: a trip's work would depend on the thread that runs it",
      "循环中有 `%.*s`：一次迭代的工作会依赖于执行它的线程"),
    F(RW_PT_TRIP_COUNTS, "`%.*s` in the loop: the threads would run other numbers of trips",
      "循环中有 `%.*s`：各线程执行的迭代次数会不同"),
    F(RW_PT_COMBINES_AGAIN, "`%.*s` in the loop: a repeated trip combines again",
      "循环中有 `%.*s`：重复的迭代会再次累积"),
    F(RW_PT_IN_LOOP, "`%.*s` in the loop",
      "循环中有 `%.*s`"),
    M(RW_PT_BREAK, "`break` leaves the loop",
      "`break` 跳出了循环"),
    F(RW_PT_CALL, "`%.*s(...)` may write memory or read what the loop writes",
      "`%.*s(...)` 可能写入内存或读取循环写入的值"),
    F(RW_PT_LOCAL_COUNTER_NAME, "the body declares a local `%.*s` of the counter's name",
      "循环体声明了与计数器同名的局部变量 `%.*s`"),
    F(RW_PT_MACRO_NAMES, "`%.*s` is a macro of the file that names a thread index, a clock, an atomic, a warp operation or the counter",
      "`%.*s` 是本文件中的宏，它引用了线程索引、时钟、原子操作、warp 操作或计数器"),
    F(RW_PT_USED_OTHERWISE, "`%.*s` is used other than as `%.*s[...]`",
      "`%.*s` 除了作为 `%.*s[...]` 之外还有其他用法"),
    F(RW_PT_READS_WRITTEN, "the loop reads `%.*s`, which the kernel writes: a repeated trip may read what another wrote",
      "循环读取了核函数会写入的 `%.*s`：重复的迭代可能读到另一次迭代写入的值"),
    F(RW_PT_POINTER_UNFOLLOWED, "`%.*s` in the loop: memory through a pointer the scan cannot follow",
      "循环中有 `%.*s`：通过扫描无法跟踪的指针访问内存"),
    F(RW_PT_MEMORY_OTHER, "`%.*s[...]`: memory that is neither a parameter buffer nor a local of the loop",
      "`%.*s[...]`：访问的内存既不是参数缓冲区也不是循环的局部变量"),
    M(RW_PT_COUNTER_UNREAD, "the body does not read its counter",
      "循环体没有读取它的计数器"),
    F(RW_PT_NO_DEFINE, "no #define of `%.*s` in the file",
      "本文件中没有 `%.*s` 的 #define"),
    F(RW_PT_DEFINED_TWICE, "`%.*s` is defined more than once, differently",
      "`%.*s` 被定义了多次，且定义不同"),
    M(RW_PT_DEFINITION_UNREADABLE, "its definition cannot be read",
      "无法读取它的定义"),
    F(RW_PT_MACRO_BOUND, "`%.*s` is not `for (...; i < (n); ...)` with its bound named once, in the condition",
      "`%.*s` 不是边界只在条件中出现一次的 `for (...; i < (n); ...)`"),
    F(RW_PT_NO_LOOP_NUMBER, "grid-stride loop at line 1: no grid-stride loop number %zu",
      "网格跨步循环（第 1 行）：没有第 %zu 个网格跨步循环"),
    M(RW_PT_NO_GRID_LOOP, "no grid-stride loop at the kernel body's top level (the kernel model reads none)",
      "核函数体的顶层没有网格跨步循环（核函数模型也没有识别出）"),
    F(RW_PT_NOT_TOP_LEVEL, "the grid-stride loop of line %u is not a statement of the body's top level",
      "第 %u 行的网格跨步循环不是函数体顶层的语句"),
    M(RW_PT_LOOP_FORM, "the loop is not `for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)`: every trip must be run once by the grid",
      "该循环不是 `for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)`：每次迭代都必须由网格恰好执行一次"),
    M(RW_PT_STMT_AFTER, "a statement after the loop (it could see which trips its thread ran)",
      "循环之后有语句（它可能看到本线程执行了哪些迭代）"),
    F(RW_PT_CONDITION, "the condition is not `%s < bound`",
      "条件不是 `%s < bound`"),
    F(RW_PT_FIRST_ARG, "its first argument is not the counter `%s`",
      "它的第一个参数不是计数器 `%s`"),
    F(RW_PT_BOUND_HOLDS, "the bound holds `%.*s`: it is not one value",
      "边界中含有 `%.*s`：它不是单一的值"),
    M(RW_PT_BOUND_COUNTER, "the bound names the counter",
      "边界引用了计数器"),
    M(RW_PT_BOUND_EMPTY, "the bound is empty or writes",
      "边界为空或有写入"),
    M(RW_PT_ALREADY, "the loop stops at its period already (this rewrite's hk_pt_ names)",
      "该循环已经在其周期处停止（含有本代码改写的 hk_pt_ 名字）"),
    F(RW_PT_BOUND_CALLS, "the bound `%.*s...` calls or reads memory",
      "边界 `%.*s...` 调用了函数或读取了内存"),
    F(RW_PT_BOUND_WRITTEN, "the bound names `%.*s`, which the body writes or declares",
      "边界引用了 `%.*s`，而循环体会写入或声明它"),
    F(RW_PT_DESC, "kernel %s: the grid-stride loop at line %d reads `%.*s` only as coordinates that repeat every %s trips, and its trips store plain values to memory it never reads: it stops at min(%.*s, %s) (the same stores, the repeats dropped; the launch is the kernel's own)",
      "核函数 %s：第 %d 行的网格跨步循环只把 `%.*s` 当作每 %s 次迭代重复一次的坐标来读取，且各次迭代只向它从不读取的内存写入普通值：循环在 min(%.*s, %s) 处停止（写入相同，去掉了重复；启动配置保持核函数自己的）"),
    /* rewrite_gemm.c (tiled_gemm) */
    M(RW_GEMM_NO_CHECK_AXES, "no bounds check, and C's rows are not the .y index or its columns not the .x index (the launch gives M and N, but the tiled body reads rows from .y and columns from .x)",
      "没有边界检查，且 C 的行不是 .y 索引或列不是 .x 索引（启动配置给出了 M 和 N，但分块后的函数体从 .y 读取行、从 .x 读取列）"),
    M(RW_GEMM_NOT_2D, "it is not a 2D kernel (row from .y, column from .x)",
      "它不是二维核函数（行来自 .y，列来自 .x）"),
    M(RW_GEMM_STMTS_BEFORE_CHECK, "statements besides the index declarations come before the bounds check",
      "边界检查之前除了索引声明还有其他语句"),
    M(RW_GEMM_A_ROW, "A is not read as A[row * lda + k] (row-major, row from .y, or from .x with the column from .y)",
      "A 不是按 A[row * lda + k] 读取（行主序，行来自 .y，或行来自 .x 而列来自 .y）"),
    M(RW_GEMM_B_ROW, "B is not read as B[k * ldb + col] (row-major, col from .x, or from .y with the row from .x)",
      "B 不是按 B[k * ldb + col] 读取（行主序，列来自 .x，或列来自 .y 而行来自 .x）"),
    M(RW_GEMM_TYPES, "A, B and the accumulator do not share one type (float or double)",
      "A、B 与累加器的类型不一致（应同为 float 或 double）"),
    M(RW_GEMM_NOTHING_WRITTEN, "nothing is written after the k loop",
      "k 循环之后没有任何写入"),
    M(RW_GEMM_AFTER_HOLDS, "the statements after the k loop hold a loop, a return, a barrier or the k index",
      "k 循环之后的语句含有循环、return、同步屏障或 k 索引"),
    M(RW_GEMM_AFTER_LOCAL, "the statements after the k loop use a local variable",
      "k 循环之后的语句用到了局部变量"),
    M(RW_GEMM_AFTER_NO_PARAM, "the statements after the k loop write no pointer parameter",
      "k 循环之后的语句没有写入任何指针参数"),
    F(RW_GEMM_DESC, "kernel %s: tiled %s GEMM %s x %s, tiles %dx%dx%d (HK_BM, HK_BN, HK_BK) in shared memory, %dx%d outputs per thread for blocks of 256 threads, grid-stride over tiles; epilogue kept",
      "核函数 %s：分块的 %s GEMM %s x %s，共享内存中的分块为 %dx%dx%d（HK_BM、HK_BN、HK_BK），256 线程的线程块中每个线程计算 %dx%d 个输出，以网格跨步方式遍历各分块；收尾部分保持不变"),
    F(RW_GEMM_DESC_LAUNCH, "kernel %s: tiled %s GEMM %s x %s, tiles %dx%dx%d (HK_BM, HK_BN, HK_BK) in shared memory, %dx%d outputs per thread for blocks of 256 threads, grid-stride over tiles; epilogue kept; no bounds check in the kernel: M and N are the launch's grid x block, so it runs under the spec's grid only",
      "核函数 %s：分块的 %s GEMM %s x %s，共享内存中的分块为 %dx%dx%d（HK_BM、HK_BN、HK_BK），256 线程的线程块中每个线程计算 %dx%d 个输出，以网格跨步方式遍历各分块；收尾部分保持不变；核函数中没有边界检查：M 和 N 是启动的 grid x block，因此只能在 bench spec 的网格下运行"),
    /* rewrite_carry.c (register_carry) */
    M(RW_C_BLOCK_STRIDED_LOOP, "block-strided loop",
      "线程块跨步循环"),
    M(RW_C_LOOP_VARIABLE, "loop variable",
      "循环变量"),
    M(RW_CR_START, "the loop's start is not the thread's threadIdx.x (a local of it never written)",
      "循环的起点不是线程自己的 threadIdx.x（或从它得到、从未被写入的局部变量）"),
    M(RW_CR_NO_OUTER, "no loop around it: each element is moved once, nothing to carry",
      "外面没有循环：每个元素只搬移一次，没有可跨迭代保留的值"),
    M(RW_CR_BOUND, "its bound or stride is not a parameter, constant or blockDim.x left unwritten (the block must take one branch)",
      "它的边界或步长不是未被写入的参数、常量或 blockDim.x（整个线程块必须走同一个分支）"),
    M(RW_CR_VAR_WRITTEN, "the block-strided loop's variable is written in its body",
      "线程块跨步循环的变量在循环体中被写入"),
    M(RW_CR_LEAVES, "the outer loop can leave the kernel: the carried values would not be written back",
      "外层循环可能离开核函数：保留在寄存器中的值将不会被写回"),
    M(RW_CR_NO_ARRAY, "no __restrict__ pointer parameter is used in the outer loop only as A[k] of this loop (and elsewhere only as A[...] or moved: A += ...)",
      "没有 __restrict__ 指针参数在外层循环中只以本循环的 A[k] 形式使用（在其他地方也只以 A[...] 形式使用或被移动：A += ...）"),
    M(RW_CR_NO_LOOP, "no block-strided loop `for (T k = threadIdx.x; k < N; k += S)` inside an outer loop",
      "外层循环中没有线程块跨步循环 `for (T k = threadIdx.x; k < N; k += S)`"),
    F(RW_CR_READ_ONLY, "%s%s (read only)",
      "%s%s（只读）"),
    F(RW_CR_DESC, "kernel %s: %s[k] of the block-strided loop at line %d (k = %s, k < %s, k += %s) carried in %d registers a thread across the loop at line %d: loaded once before it and written back once after it instead of once a trip (exact; when %s <= %d * %s, blockDim.x <= %s and a 1-D block, else the original loop)",
      "核函数 %s：%s[k]（第 %d 行的线程块跨步循环，k = %s，k < %s，k += %s）以每线程 %d 个寄存器跨越第 %d 行的循环保留：在循环前读取一次、循环后写回一次，而不是每次迭代一次（结果完全一致；条件是 %s <= %d * %s、blockDim.x <= %s 且为一维线程块，否则执行原循环）"),
    F(RW_CR_DESC_LB, "kernel %s: %s[k] of the block-strided loop at line %d (k = %s, k < %s, k += %s) carried in %d registers a thread across the loop at line %d: loaded once before it and written back once after it instead of once a trip (exact; when %s <= %d * %s, blockDim.x <= %s and a 1-D block, else the original loop); %s",
      "核函数 %s：%s[k]（第 %d 行的线程块跨步循环，k = %s，k < %s，k += %s）以每线程 %d 个寄存器跨越第 %d 行的循环保留：在循环前读取一次、循环后写回一次，而不是每次迭代一次（结果完全一致；条件是 %s <= %d * %s、blockDim.x <= %s 且为一维线程块，否则执行原循环）；%s"),
};

#undef M
#undef F

static enum hk_lang current = HK_LANG_EN;

void hk_utf8_trim(char *s)
{
    size_t n = strlen(s), lead = n;
    /* the last lead byte, at most 3 continuation bytes back */
    while (lead > 0 && n - lead < 4 && ((unsigned char)s[lead - 1] & 0xC0) == 0x80)
        lead--;
    if (lead == 0)
        return;
    unsigned char b = (unsigned char)s[lead - 1];
    size_t want = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
    if (want && n - (lead - 1) < want)
        s[lead - 1] = '\0';
}

const char *hk_lang_tag(enum hk_lang lang)
{
    return lang == HK_LANG_ZH_CN ? "zh-CN" : "en";
}

/* Case-insensitive: does the subtag at s (up to '-', '_', '.', '@' or the end) equal w? */
static bool subtag_is(const char *s, size_t n, const char *w)
{
    if (strlen(w) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)s[i]) != w[i])
            return false;
    return true;
}

enum hk_lang hk_i18n_parse(const char *locale)
{
    if (!locale)
        return HK_LANG_EN;
    const char *p = locale;
    size_t n = strcspn(p, "-_.@");
    if (!subtag_is(p, n, "zh"))
        return HK_LANG_EN;
    /* the subtags after the language, up to the codeset or modifier */
    p += n;
    while (*p == '-' || *p == '_') {
        p++;
        n = strcspn(p, "-_.@");
        if (subtag_is(p, n, "hant") || subtag_is(p, n, "tw") || subtag_is(p, n, "hk") ||
            subtag_is(p, n, "mo"))
            return HK_LANG_EN;
        p += n;
    }
    return HK_LANG_ZH_CN;
}

enum hk_lang hk_i18n_pick(const char *lsp_locale, const char *env_lang)
{
    if (lsp_locale && *lsp_locale)
        return hk_i18n_parse(lsp_locale);
    return hk_i18n_parse(env_lang);
}

const char *hk_i18n_env_locale(void)
{
    static const char *const vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (size_t i = 0; i < HK_ARRAY_LEN(vars); i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return v;
    }
    return NULL;
}

void hk_i18n_set(enum hk_lang lang)
{
    current = lang == HK_LANG_ZH_CN ? HK_LANG_ZH_CN : HK_LANG_EN;
}

/* this thread's language, when it differs from the process's (hk_i18n_thread_lang) */
static _Thread_local int thread_lang = -1;

int hk_i18n_thread_lang(int lang)
{
    int was = thread_lang;
    thread_lang = lang >= 0 && lang < HK_LANG_COUNT ? lang : -1;
    return was;
}

enum hk_lang hk_i18n_lang(void)
{
    return thread_lang >= 0 ? (enum hk_lang)thread_lang : current;
}

const char *hk_tr_in(enum hk_lang lang, enum hk_msg id)
{
    if ((unsigned)id >= HK_MSG_COUNT || (unsigned)lang >= HK_LANG_COUNT)
        return "";
    const char *t = msgs[id].text[lang];
    /* NEVER in a tested build: every row has both languages */
    if (!t || !*t)
        t = msgs[id].text[HK_LANG_EN];
    return t ? t : "";
}

const char *hk_tr(enum hk_msg id)
{
    return hk_tr_in(hk_i18n_lang(), id);
}

const char *hk_msg_entry(enum hk_lang lang, enum hk_msg id)
{
    if ((unsigned)id >= HK_MSG_COUNT || (unsigned)lang >= HK_LANG_COUNT)
        return NULL;
    return msgs[id].text[lang];
}

bool hk_msg_is_format(enum hk_msg id)
{
    return (unsigned)id < HK_MSG_COUNT && msgs[id].format;
}

const char *hk_msg_name(enum hk_msg id)
{
    if ((unsigned)id >= HK_MSG_COUNT || !msgs[id].name)
        return "";
    return msgs[id].name;
}

char *hk_vtrf(enum hk_msg id, va_list ap)
{
    return hk_vasprintf(hk_tr(id), ap);
}

void hk_vtr_into(char *out, size_t n, enum hk_msg id, va_list ap)
{
    if (hk_msg_is_format(id))
        vsnprintf(out, n, hk_tr(id), ap);
    else
        snprintf(out, n, "%s", hk_tr(id));
    hk_utf8_trim(out);
}

char *hk_trf(enum hk_msg id, ...)
{
    va_list ap;
    va_start(ap, id);
    char *s = hk_vtrf(id, ap);
    va_end(ap);
    return s;
}

/* ---- reading an English sentence back (hk_tr_back) ---- */

/* The length of the conversion at f (f[0] == '%', not "%%"): flags, width, precision,
 * length and the conversion letter; 0 when it is not one. */
static size_t conv_len(const char *f)
{
    /* switches, not strchr: back_match asks this at every conversion of every try */
    size_t i = 1;
    for (;; i++)
        switch (f[i]) {
        case '-': case '+': case ' ': case '#': case '0': continue;
        default: goto width;
        }
width:
    while ((f[i] >= '0' && f[i] <= '9') || f[i] == '*')
        i++;
    if (f[i] == '.') {
        i++;
        while ((f[i] >= '0' && f[i] <= '9') || f[i] == '*')
            i++;
    }
    for (;; i++)
        switch (f[i]) {
        case 'h': case 'l': case 'z': case 'j': case 't': case 'L': continue;
        default: goto conv;
        }
conv:
    switch (f[i]) {
    case 'd': case 'i': case 'o': case 'u': case 'x': case 'X': case 'e': case 'E':
    case 'f': case 'g': case 'G': case 'c': case 's': case 'p':
        return i + 1;
    default:
        return 0;
    }
}

#define BACK_MAX_CONVS 16

/* Whether a conversion of kind (its letter) can have printed the character c: any for %s,
 * %c and %p; digits, a sign and, for the floating ones, '.', an exponent, inf and nan. */
static bool conv_may_hold(char kind, char c)
{
    if (kind == 's' || kind == 'c' || kind == 'p')
        return true;
    if (isdigit((unsigned char)c) || c == '-' || c == '+' || c == ' ')
        return true;
    if (strchr("xX", kind))
        return isxdigit((unsigned char)c) || c == 'x' || c == 'X';
    if (strchr("eEfgG", kind))
        return strchr(".eEinfaINFA", c) != NULL;
    return false;
}

/* The entries a sentence may have been written from: ranges of ids, each first..last. */
struct back_set {
    const enum hk_msg (*range)[2];
    size_t n;
    bool whole_first; /* a quoted piece is read as one entry before as a list (back_say) */
};

struct back_match {
    const char *at[BACK_MAX_CONVS]; /* each conversion's text in the sentence */
    size_t len[BACK_MAX_CONVS];
    char kind[BACK_MAX_CONVS];      /* its conversion letter */
    size_t n;
    long steps;                     /* left to try: a bound on the backtracking */
    bool item;                      /* the entry is a list item (back_item) */
    const struct back_set *set;     /* the entries a quoted piece may be */
    bool found;                     /* best holds a match */
    int best_score;
    const char *best_at[BACK_MAX_CONVS];
    size_t best_len[BACK_MAX_CONVS];
    char best_kind[BACK_MAX_CONVS];
    size_t best_n;
};

static int back_find(const char *s, const struct back_set *set, struct back_match *out);
/* hk_i18n_back_index(false): the table scanned as before the index (back_find,
 * back_is_plain_entry), and back_match calling itself for every piece: for the tests */
static bool back_ix_off;
static bool back_is_plain_entry(const char *piece, const struct back_set *set);

/* Tries left to one hk_tr_back or hk_tr_said call in all, whatever it nests: a sentence
 * of many quoted pieces (a list of notes) has more readings than are worth trying, and
 * the editor's loop says each event it relays (docs/i18n.md). Spent: no match (the
 * sentence is shown as it is). A spec note of nested fragments takes up to about a
 * million (test_spec_i18n's 21 kernels). BACK_BUDGET fits a rejection four sentences
 * deep (re-check, wrong answer, the oracle's output and comparison: 0.5 ms of CPU in a
 * Debug build) and stops a line that quotes a list of notes at 2.4-2.7 ms
 * (bench/results/2026-12-05-i18n-neutral-s29.md). */
#define BACK_BUDGET 200000L
#define BACK_BUDGET_NOTES 4000000L
static _Thread_local long back_budget;

/* How well a split reads: a quoted %s piece that is an entry of the range (plain text:
 * 2, a sentence of a format: 1) counts; among the splits of adjacent conversions ("%s%s")
 * the one whose pieces are the range's own wins. */
static int back_score(const char *const *at, const size_t *len, const char *kind, size_t n,
                      const struct back_set *set)
{
    int score = 0;
    for (size_t k = 0; k < n; k++) {
        if (kind[k] != 's' || len[k] == 0)
            continue;
        char *piece = hk_strndup(at[k], len[k]);
        if (!piece)
            continue;
        if (back_is_plain_entry(piece, set)) {
            score += 2;
        } else if (len[k] > 3) {
            struct back_match sub;
            if (back_find(piece, set, &sub) >= 0)
                score += 1;
        }
        hk_free(piece);
    }
    return score;
}

/* Scores are weighed only between two splits of one entry: a sentence with one reading of
 * its entry (most) costs no search of its pieces here. */
#define BACK_UNSCORED INT_MIN

/* k calls of back_match that each return at their first byte, spent as they spend them:
 * each takes a step, and a try of the budget while the steps last; they stop once either
 * has run out (back_match's loop tests both before each). */
static void back_spend(struct back_match *m, size_t k)
{
    long steps = m->steps, budget = back_budget;
    if ((long)k <= steps && (long)k <= budget + 1) { /* all of them, each spending both */
        m->steps = steps - (long)k;
        back_budget = budget - (long)k;
    } else if (steps <= budget) { /* the steps run out first: the last spends no try */
        m->steps = -1;
        back_budget = budget - steps;
    } else { /* the budget runs out first */
        m->steps = steps - budget - 1;
        back_budget = -1;
    }
}

/* An entry written "%s%s ..." is a list's item: the code prints it with the separator
 * (", " or "; " between items, "" before the first) and then a name (a parameter, a size
 * variable), and the items are joined into a list that a sentence quotes (read-only
 * loads' "skipped: b (written or passed on), c (...)", spec inference's "N (line 3)").
 * Read as anything else, such an entry swallows the whole sentence that quotes the list:
 * it ends with the item's text and has more literal text than the sentence's own entry
 * ("%s at line %d: %s"), so the sentence was taken for an item whose name is the rest of
 * it. Whether the piece of conversion k (n bytes at s) can be what the code printed
 * there: 1 yes, 0 not this length (a longer one may be), -1 neither this nor a longer one. */
static bool back_is_item(const char *en, bool fmt)
{
    return fmt && !strncmp(en, "%s%s", 4);
}

static int back_item_piece(size_t k, const char *s, size_t n)
{
    if (k == 0) /* the separator */
        return n == 0 ? 1 : n == 1 ? 0 : n == 2 && (s[0] == ',' || s[0] == ';') && s[1] == ' ' ? 1 : -1;
    if (k == 1) { /* the name: an identifier */
        if (n == 0)
            return 0;
        unsigned char c = (unsigned char)s[n - 1];
        if (!(isalnum(c) || c == '_') || (n == 1 && isdigit(c)))
            return -1;
    }
    return 1;
}

/* Every way s matches the format f (plain text when !fmt): each conversion takes a piece
 * (a %s may be empty, as a conversion given "" is), shortest first; the best-scored one is
 * kept in m. At most m->steps tries in all. */
static void back_match(const char *f, const char *s, bool fmt, struct back_match *m)
{
    if (--m->steps < 0 || --back_budget < 0)
        return;
    for (;;) {
        if (!*f) {
            if (!*s) {
                int score = BACK_UNSCORED;
                if (m->found) {
                    if (m->best_score == BACK_UNSCORED)
                        m->best_score = back_score(m->best_at, m->best_len, m->best_kind,
                                                   m->best_n, m->set);
                    score = back_score(m->at, m->len, m->kind, m->n, m->set);
                }
                if (!m->found || score > m->best_score) {
                    m->found = true;
                    m->best_score = score;
                    m->best_n = m->n;
                    memcpy(m->best_at, m->at, sizeof m->at);
                    memcpy(m->best_len, m->len, sizeof m->len);
                    memcpy(m->best_kind, m->kind, sizeof m->kind);
                }
            }
            return;
        }
        if (fmt && f[0] == '%' && f[1] == '%') {
            if (*s != '%')
                return;
            f += 2;
            s++;
            continue;
        }
        size_t cl = fmt && *f == '%' ? conv_len(f) : 0;
        if (!cl) {
            if (*f != *s)
                return;
            f++;
            s++;
            continue;
        }
        if (m->n >= BACK_MAX_CONVS)
            return;
        size_t k = m->n++;
        m->at[k] = s;
        m->kind[k] = f[cl - 1];
        size_t avail = strlen(s);
        /* the format's next byte, when it is literal text: a piece after which the sentence
         * does not go on with it is no reading, and the call that would find that out
         * spends one try (steps, then the budget while steps last) and returns, which is
         * done here without the call (the same tries spent, so the same answer) */
        char next = f[cl] != '%' ? f[cl] : f[cl + 1] == '%' ? '%' : '\0';
        for (size_t n = m->kind[k] == 's' ? 0 : 1; n <= avail && m->steps >= 0 && back_budget >= 0;
             n++) {
            /* a number's conversion printed a number: a piece with another character in it
             * is no reading (and longer ones hold it too) */
            if (n > 0 && !conv_may_hold(m->kind[k], s[n - 1]))
                break;
            if (m->item && k < 2) {
                int ok = back_item_piece(k, s, n);
                if (ok < 0)
                    break;
                if (ok == 0)
                    continue;
            }
            m->len[k] = n;
            /* (an item's separator and name are short and tried byte by byte in both
             * ways, so that back_item_piece sees every one) */
            if (next && s[n] != next && !back_ix_off && !(m->item && k < 2)) {
                /* a %s's pieces up to the next place that holds the byte (any bytes may
                 * be in a %s), else this one */
                size_t to = n + 1;
                if (m->kind[k] == 's') {
                    const char *p = memchr(s + n, next, avail - n);
                    to = p ? (size_t)(p - s) : avail + 1;
                }
                back_spend(m, to - n);
                n = to - 1;
                continue;
            }
            back_match(f + cl, s + n, fmt, m);
        }
        m->n = k;
        return;
    }
}

static size_t literal_len(const char *f, bool fmt)
{
    size_t n = 0;
    while (*f) {
        size_t cl = fmt && *f == '%' && f[1] != '%' ? conv_len(f) : 0;
        if (cl) {
            f += cl;
        } else {
            f += fmt && f[0] == '%' && f[1] == '%' ? 2 : 1;
            n++;
        }
    }
    return n;
}

/* Whether every literal run of the entry en (of 4 bytes or more; conversions split them)
 * occurs in s: an entry that fails it cannot match, and is ruled out without backtracking. */
static bool back_literals_in(const char *en, bool fmt, const char *s)
{
    char run[256];
    size_t n = 0;
    for (const char *f = en;; ) {
        size_t cl = fmt && f[0] == '%' && f[1] != '%' ? conv_len(f) : 0;
        if (!*f || cl || n + 1 >= sizeof run) {
            run[n] = '\0';
            if (n >= 4 && !strstr(s, run))
                return false;
            n = 0;
            if (!*f)
                return true;
            if (cl) {
                f += cl;
                continue;
            }
        }
        if (fmt && f[0] == '%' && f[1] == '%') {
            run[n++] = '%';
            f += 2;
        } else {
            run[n++] = *f++;
        }
    }
}

/* ---- an index of the table's English entries, built once (back_index) ----
 *
 * back_find tries every entry of its ranges against a sentence, and hk_tr_said nests it
 * (each quoted piece of each split is looked up again: back_score, back_say), so that one
 * line of the editor's loop ran it thousands of times over the whole table: 2.5 ms of CPU
 * for a refused tunable's line (session 34). What it tested of an entry before trying it,
 * its first byte, its length in literal text and its literal runs, does not depend on the
 * sentence: the index holds it, made once from the table whatever its content. back_find
 * then visits only the entries that start with the sentence's first byte or with a
 * conversion, in the order the plain scan visits them (range by range, by id), and rules
 * each out with the same tests, so that it tries (back_match) exactly the entries the
 * plain scan tries, in the same order, and spends the same budget: the same answer
 * (test_core_i18n compares the two on every entry of the table). The plain text entries
 * sorted by their English text answer back_score's "is this piece an entry" by a binary
 * search. Static arrays (no allocation: nothing live at exit). */

/* Literal runs an entry's index holds; an entry with more is tested as before. */
#define BACK_RUNS_MAX 8

struct back_index_entry {
    size_t lit;                           /* literal_len */
    unsigned short n_runs;                /* runs of 4 bytes or more, as back_literals_in */
    bool runs_as_before;                  /* too many runs, or a "%%" in one */
    unsigned short run_off[BACK_RUNS_MAX]; /* into the English text */
    unsigned short run_len[BACK_RUNS_MAX];
};

static struct {
    struct back_index_entry e[HK_MSG_COUNT];
    int by_first[HK_MSG_COUNT];   /* ids by their English text's first byte, then by id */
    int first_at[257];            /* by_first[first_at[c]..first_at[c + 1]) start with c */
    int plain[HK_MSG_COUNT];      /* the plain text entries' ids by English text, then id */
    int n_plain;
} back_ix;
static pthread_once_t back_ix_once = PTHREAD_ONCE_INIT;

/* The runs back_literals_in tests, cut as it cuts them (at a conversion, and every 255
 * bytes), as offsets into en; false when one holds "%%" (not the sentence's bytes) or
 * there are more than BACK_RUNS_MAX. */
static bool back_ix_runs(const char *en, bool fmt, struct back_index_entry *x)
{
    size_t n = 0, start = 0;
    bool pct = false;
    for (const char *f = en;;) {
        size_t cl = fmt && f[0] == '%' && f[1] != '%' ? conv_len(f) : 0;
        if (!*f || cl || n + 1 >= 256) {
            if (n >= 4) {
                if (pct || x->n_runs >= BACK_RUNS_MAX)
                    return false;
                x->run_off[x->n_runs] = (unsigned short)start;
                x->run_len[x->n_runs] = (unsigned short)n;
                x->n_runs++;
            }
            n = 0;
            pct = false;
            if (!*f)
                return true;
            if (cl) {
                f += cl;
                continue;
            }
        }
        if (n == 0)
            start = (size_t)(f - en);
        if (fmt && f[0] == '%' && f[1] == '%') {
            pct = true;
            f += 2;
        } else {
            f++;
        }
        n++;
    }
}

static int back_ix_first_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int cx = (unsigned char)msgs[x].text[HK_LANG_EN][0];
    int cy = (unsigned char)msgs[y].text[HK_LANG_EN][0];
    return cx != cy ? cx - cy : x - y;
}

static int back_ix_text_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(msgs[x].text[HK_LANG_EN], msgs[y].text[HK_LANG_EN]);
    return c ? c : x - y;
}

static void back_ix_build(void)
{
    int n = 0;
    for (int id = 0; id < HK_MSG_COUNT; id++) {
        const char *en = msgs[id].text[HK_LANG_EN];
        if (!en)
            continue;
        struct back_index_entry *x = &back_ix.e[id];
        x->lit = literal_len(en, msgs[id].format);
        x->runs_as_before = strlen(en) > USHRT_MAX || !back_ix_runs(en, msgs[id].format, x);
        for (unsigned i = 1; i < x->n_runs; i++) /* the longest first */
            for (unsigned j = i; j > 0 && x->run_len[j] > x->run_len[j - 1]; j--) {
                unsigned short o = x->run_off[j], l = x->run_len[j];
                x->run_off[j] = x->run_off[j - 1];
                x->run_len[j] = x->run_len[j - 1];
                x->run_off[j - 1] = o;
                x->run_len[j - 1] = l;
            }
        back_ix.by_first[n++] = id;
        if (!msgs[id].format)
            back_ix.plain[back_ix.n_plain++] = id;
    }
    qsort(back_ix.by_first, (size_t)n, sizeof *back_ix.by_first, back_ix_first_cmp);
    qsort(back_ix.plain, (size_t)back_ix.n_plain, sizeof *back_ix.plain, back_ix_text_cmp);
    int at = 0;
    for (int c = 0; c <= 256; c++) {
        while (at < n && (unsigned char)msgs[back_ix.by_first[at]].text[HK_LANG_EN][0] < c)
            at++;
        back_ix.first_at[c] = at;
    }
}

void hk_i18n_back_index(bool on)
{
    back_ix_off = !on;
}

static bool back_in_set(int id, const struct back_set *set)
{
    for (size_t r = 0; r < set->n; r++)
        if (id >= (int)set->range[r][0] && id <= (int)set->range[r][1])
            return true;
    return false;
}

/* Whether piece is the English text of a plain text entry of set (back_score). */
static bool back_is_plain_entry(const char *piece, const struct back_set *set)
{
    if (back_ix_off) {
        for (size_t r = 0; r < set->n; r++)
            for (int id = (int)set->range[r][0];
                 id <= (int)set->range[r][1] && id < HK_MSG_COUNT; id++)
                if (!msgs[id].format && msgs[id].text[HK_LANG_EN] &&
                    !strcmp(msgs[id].text[HK_LANG_EN], piece))
                    return true;
        return false;
    }
    pthread_once(&back_ix_once, back_ix_build);
    int lo = 0, hi = back_ix.n_plain; /* the first entry not below piece */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(msgs[back_ix.plain[mid]].text[HK_LANG_EN], piece) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < back_ix.n_plain && !strcmp(msgs[back_ix.plain[lo]].text[HK_LANG_EN], piece); lo++)
        if (back_in_set(back_ix.plain[lo], set))
            return true;
    return false;
}

/* Whether the n bytes at w occur in s (slen bytes): memmem, without its setup, which
 * costs more than the search on a sentence's few dozen bytes. */
static bool back_has(const char *s, size_t slen, const char *w, size_t n)
{
    if (n > slen)
        return false;
    const char *end = s + (slen - n);
    for (const char *p = s; p <= end; p++) {
        p = memchr(p, w[0], (size_t)(end - p) + 1);
        if (!p)
            return false;
        if (!memcmp(p, w, n))
            return true;
    }
    return false;
}

/* Whether every literal run of entry id occurs in s (slen bytes): back_literals_in, from
 * the index (the longest run first: it rules most entries out). */
static bool back_ix_literals_in(int id, const char *s, size_t slen)
{
    const struct back_index_entry *x = &back_ix.e[id];
    if (x->runs_as_before)
        return back_literals_in(msgs[id].text[HK_LANG_EN], msgs[id].format, s);
    const char *en = msgs[id].text[HK_LANG_EN];
    for (unsigned k = 0; k < x->n_runs; k++)
        if (!back_has(s, slen, en + x->run_off[k], x->run_len[k]))
            return false;
    return true;
}

/* The first position of by_first[from..to) whose id is lo or more. */
static int back_ix_lower(int from, int to, int lo)
{
    while (from < to) {
        int mid = from + (to - from) / 2;
        if (back_ix.by_first[mid] < lo)
            from = mid + 1;
        else
            to = mid;
    }
    return from;
}

/* Tries entry id on s for back_find: its tests, then back_match. */
static void back_try(int id, const char *s, size_t slen, const struct back_set *set,
                     bool indexed, int *best, size_t *best_lit, struct back_match *out)
{
    const char *en = msgs[id].text[HK_LANG_EN];
    if (!en)
        return;
    /* most entries start with literal text: a first byte that differs rules one
     * out before any backtracking */
    if (en[0] != '%' && en[0] != s[0])
        return;
    size_t lit = indexed ? back_ix.e[id].lit : literal_len(en, msgs[id].format);
    if (lit <= *best_lit || lit > slen ||
        !(indexed ? back_ix_literals_in(id, s, slen)
                  : back_literals_in(en, msgs[id].format, s)))
        return;
    struct back_match m = {.n = 0, .steps = 20000, .item = back_is_item(en, msgs[id].format),
                           .set = set};
    back_match(en, s, msgs[id].format, &m);
    if (m.found) {
        *best = id;
        *best_lit = lit;
        *out = m;
    }
}

/* The id of set whose English entry matches s best (most literal text), or -1; out holds
 * its best split (best_*). */
static int back_find(const char *s, const struct back_set *set, struct back_match *out)
{
    int best = -1;
    size_t best_lit = 0, slen = strlen(s);
    if (back_ix_off) { /* the plain scan */
        for (size_t r = 0; r < set->n; r++)
            for (int id = (int)set->range[r][0];
                 id <= (int)set->range[r][1] && id < HK_MSG_COUNT; id++)
                back_try(id, s, slen, set, false, &best, &best_lit, out);
        return best;
    }
    pthread_once(&back_ix_once, back_ix_build);
    /* the entries starting with s's first byte and those starting with a conversion,
     * merged by id within each range: the plain scan's order */
    int c = (unsigned char)s[0], pc = '%';
    for (size_t r = 0; r < set->n; r++) {
        int lo = (int)set->range[r][0], hi = (int)set->range[r][1];
        if (hi >= HK_MSG_COUNT)
            hi = HK_MSG_COUNT - 1;
        if (lo > hi)
            continue;
        int a = back_ix_lower(back_ix.first_at[c], back_ix.first_at[c + 1], lo);
        int a_end = back_ix.first_at[c + 1];
        int b = c == pc ? 0 : back_ix_lower(back_ix.first_at[pc], back_ix.first_at[pc + 1], lo);
        int b_end = c == pc ? 0 : back_ix.first_at[pc + 1];
        for (;;) {
            int ia = a < a_end ? back_ix.by_first[a] : INT_MAX;
            int ib = b < b_end ? back_ix.by_first[b] : INT_MAX;
            int id = ia < ib ? ia : ib;
            if (id > hi)
                break;
            if (ia < ib)
                a++;
            else
                b++;
            back_try(id, s, slen, set, true, &best, &best_lit, out);
        }
    }
    return best;
}

/* The tails of one quoted piece that no reading covers (offsets into it), so that a list is
 * split in polynomial time: each tail is tried once. */
struct say_memo {
    const char *root;
    unsigned char *dead; /* strlen(root) + 1 flags */
};

static char *back_say(enum hk_lang lang, const char *s, const struct back_set *set, int depth,
                      struct say_memo *memo);

static char *back_tr(enum hk_lang lang, const char *english, const struct back_set *set)
{
    if (!english || (unsigned)lang >= HK_LANG_COUNT || strlen(english) > 4096)
        return NULL;
    struct back_match m;
    int id = back_find(english, set, &m);
    if (id < 0)
        return NULL;
    const char *to = hk_tr_in(lang, (enum hk_msg)id);
    if (!msgs[id].format)
        return hk_strdup(to);
    struct hk_buf b;
    hk_buf_init(&b, 16384);
    size_t k = 0;
    for (const char *f = to; *f;) {
        size_t cl = f[0] == '%' && f[1] != '%' ? conv_len(f) : 0;
        if (f[0] == '%' && f[1] == '%') {
            hk_buf_append(&b, "%", 1);
            f += 2;
        } else if (cl && k < m.best_n) {
            char *piece = hk_strndup(m.best_at[k], m.best_len[k]);
            /* a quoted sentence of the range (a fragment) in lang too */
            char *again = piece && *piece && m.best_kind[k] == 's'
                              ? back_say(lang, piece, set, 0, NULL)
                              : NULL;
            const char *use = again ? again : piece;
            if (use)
                hk_buf_appends(&b, use);
            hk_free(again);
            hk_free(piece);
            k++;
            f += cl;
        } else {
            hk_buf_append(&b, f, 1);
            f++;
        }
    }
    char *out = b.data ? hk_strndup(b.data, b.len) : hk_strdup("");
    hk_buf_free(&b);
    return out;
}

/* A quoted piece: a list of the range's entries (items joined as a fragment's separator
 * joins them: ", " or "; "; a format's %s%s would swallow the list whole), else one entry,
 * each said in lang; with set->whole_first, one entry first. NULL when no reading covers
 * all of it. */
static char *back_say(enum hk_lang lang, const char *s, const struct back_set *set, int depth,
                      struct say_memo *memo)
{
    struct say_memo own = {s, NULL};
    if (!memo) {
        own.dead = hk_calloc(strlen(s) + 1, 1);
        if (!own.dead)
            return NULL;
        memo = &own;
    }
    char *out = set->whole_first ? back_tr(lang, s, set) : NULL;
    for (const char *p = s + 1; *p && depth < 8 && !out; p++) {
        if (!((p[0] == ',' || p[0] == ';') && p[1] == ' ') || memo->dead[p - memo->root])
            continue;
        char *head_en = hk_strndup(s, (size_t)(p - s));
        char *head = head_en ? back_tr(lang, head_en, set) : NULL;
        hk_free(head_en);
        if (!head)
            continue;
        char *tail = back_say(lang, p, set, depth + 1, memo);
        if (!tail)
            memo->dead[p - memo->root] = 1;
        out = tail ? hk_asprintf("%s%s", head, tail) : NULL;
        hk_free(head);
        hk_free(tail);
    }
    if (!out && !set->whole_first)
        out = back_tr(lang, s, set);
    /* a list's tail whose items are whole sentences, not items of the "%s%s" form (a
     * rewrite's reason then the kernel model's, joined by "; "): the separator, said, and
     * the rest read as a list again */
    if (!out && depth < 8 && (s[0] == ',' || s[0] == ';') && s[1] == ' ' && s[2] &&
        !memo->dead[s + 2 - memo->root]) {
        char *rest = back_say(lang, s + 2, set, depth + 1, memo);
        if (!rest)
            memo->dead[s + 2 - memo->root] = 1;
        else
            out = hk_asprintf("%s%s", hk_tr_in(lang, s[0] == ',' ? HK_MSG_INF_FRAG_SEP : HK_MSG_SAID_SEMI),
                              rest);
        hk_free(rest);
    }
    hk_free(own.dead);
    return out;
}

char *hk_tr_back(enum hk_lang lang, const char *english, enum hk_msg first, enum hk_msg last)
{
    const enum hk_msg range[1][2] = {{first, last}};
    const struct back_set set = {range, 1, false};
    back_budget = BACK_BUDGET_NOTES;
    return back_tr(lang, english, &set);
}

/* Where a stored or sent sentence comes from (hk_tr_said): the worker's progress details,
 * its log lines and failures with the referee's and the oracle's sentences and the version
 * events, the editor server's record of a worker's end, spec inference's notes and doubts,
 * and the spec's validation they quote. */
static const enum hk_msg said_ranges[][2] = {
    {HK_MSG_EPW_PEAKS, HK_MSG_EPW_CMD_INTERLEAVED},
    {HK_MSG_EP_ACCURACY_REFEREE_ADDED_DISTRIBUTION, HK_MSG_EP_VER_FLAGGED},
    {HK_MSG_LSP_END_STOPPED, HK_MSG_LSP_END_STATUS},
    {HK_MSG_INF_INCLUDE_DIRS, HK_MSG_INF_FRAG_MULTIPLIES},
    {HK_MSG_SPEC_UNKNOWN_FIELD_NEAR, HK_MSG_EXPR_EXPECTED_VALUE},
    {HK_MSG_CF_CANNOT_READ, HK_MSG_MEAS_WHY_ONE_SIZE},
    /* the rewrites' and the search's sentences: the enum's last section */
    {HK_MSG_SRCH_KNOB_INITIALISES, HK_MSG_COUNT - 1},
};

char *hk_tr_said(enum hk_lang lang, const char *english)
{
    if (lang == HK_LANG_EN || !english || !*english)
        return NULL;
    /* a worker's sentence nests others whole (a rejection quotes the oracle's, which
     * quotes a list of errors), where a spec note's fragments make lists */
    const struct back_set set = {said_ranges, HK_ARRAY_LEN(said_ranges), true};
    back_budget = BACK_BUDGET;
    return back_tr(lang, english, &set);
}

const char *hk_signal_words(int sig)
{
    static const struct { int sig; enum hk_msg id; } names[] = {
        {SIGHUP, HK_MSG_SIG_HUP},   {SIGINT, HK_MSG_SIG_INT},   {SIGQUIT, HK_MSG_SIG_QUIT},
        {SIGILL, HK_MSG_SIG_ILL},   {SIGTRAP, HK_MSG_SIG_TRAP}, {SIGABRT, HK_MSG_SIG_ABRT},
        {SIGBUS, HK_MSG_SIG_BUS},   {SIGFPE, HK_MSG_SIG_FPE},   {SIGKILL, HK_MSG_SIG_KILL},
        {SIGUSR1, HK_MSG_SIG_USR1}, {SIGSEGV, HK_MSG_SIG_SEGV}, {SIGUSR2, HK_MSG_SIG_USR2},
        {SIGPIPE, HK_MSG_SIG_PIPE}, {SIGALRM, HK_MSG_SIG_ALRM}, {SIGTERM, HK_MSG_SIG_TERM},
        {SIGXCPU, HK_MSG_SIG_XCPU}, {SIGXFSZ, HK_MSG_SIG_XFSZ},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(names); i++)
        if (names[i].sig == sig)
            return hk_tr(names[i].id);
    return strsignal(sig);
}

char *hk_tr_note(enum hk_lang lang, const char *english)
{
    if (lang == HK_LANG_EN || !english || !*english)
        return NULL;
    char *out = hk_tr_back(lang, english, HK_MSG_INF_INCLUDE_DIRS, HK_MSG_INF_FRAG_MULTIPLIES);
    return out ? out : hk_tr_said(lang, english);
}
