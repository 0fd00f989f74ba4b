/* The message table and the language choice (docs/i18n.md). The Chinese follows what
 * CUDA/DCU engineers in China say: 核函数, 加速比, 基线, 带宽, 屋顶线模型; names that are
 * the product's own (bench spec, episode ids, NVIDIA, DCU) stay as they are. */
#include "core/i18n.h"

#include "core/hk.h"

#include <ctype.h>
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
    F(INF_BLOCK_PINNED,
      "block pinned at %lld: %s (line %d)",
      "线程块固定为 %lld：%s（第 %d 行）"),
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
    F(INF_VALUES_ROWS,
      "values of %s in [0, %lld]: they pick rows of a table of %d rows (line %d)",
      "%s 的值在 [0, %lld] 内：它们选择一张 %d 行的表中的行（第 %d 行）"),
    F(INF_VALUES_CLASS,
      "values of %s in [0, %lld]: the kernel compares them with a remainder by a size (a class "
      "label), and every subscript they feed (line %d) stays inside its buffer at every size set",
      "%s 的值在 [0, %lld] 内：核函数将它们与对某个大小取余的结果比较（类别标签），它们参与的每个下标（第 %d 行）在每组大小下都在缓冲区之内"),
    F(INF_VALUES_DIGIT,
      "values of %s in [0, %lld]: it is the lowest digit of a subscript whose other terms are "
      "multiples of a size (line %d), and every subscript it feeds stays inside its buffer at "
      "every size set",
      "%s 的值在 [0, %lld] 内：它是一个下标的最低位，该下标的其他项都是某个大小的倍数（第 %d 行），它参与的每个下标在每组大小下都在缓冲区之内"),
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

char *hk_trf(enum hk_msg id, ...)
{
    va_list ap;
    va_start(ap, id);
    char *s = hk_vtrf(id, ap);
    va_end(ap);
    return s;
}
