/* User-visible text in English or Simplified Chinese (docs/i18n.md). One table of
 * messages keyed by stable ids (i18n.c), one process-wide language. Machine-readable
 * output (JSON keys, reason codes, --json, --events) is never translated. */
#ifndef HK_CORE_I18N_H
#define HK_CORE_I18N_H

#include <stdarg.h>
#include <stdbool.h>

enum hk_lang { HK_LANG_EN, HK_LANG_ZH_CN, HK_LANG_COUNT };

/* A message's id. Adding one: a line here and a row in i18n.c's table with both
 * languages, M for plain text or F for a printf format (test_core_i18n fails on a
 * missing or empty entry, and on a format whose conversions differ between the
 * languages). Pass an F entry to hk_trf or a printf, an M entry only as text (%s). */
enum hk_msg {
    /* code actions and code lenses */
    HK_MSG_ACT_OPTIMIZE_NVIDIA,
    HK_MSG_ACT_OPTIMIZE_DCU,
    HK_MSG_ACT_OPTIMIZE_NVIDIA_WITH, /* %s: engine name */
    HK_MSG_ACT_CREATE_SPEC,
    HK_MSG_ACT_SHOW_REPORT,
    HK_MSG_ACT_APPLY_SPEEDUP,        /* %d version, %.2f speedup, %s HK_MSG_SIMULATED_WORD or "" */
    HK_MSG_ACT_APPLY,                /* %d version, %s HK_MSG_SIMULATED_PAREN or "" */
    HK_MSG_LENS_OPTIMIZE_NVIDIA,
    HK_MSG_LENS_OPTIMIZE_DCU,
    HK_MSG_LENS_BEST_APPLY,          /* %.2f speedup, %s simulated word, %d version */
    HK_MSG_LENS_REPORT,
    HK_MSG_SIMULATED_WORD,           /* " simulated", inside a parenthesis */
    HK_MSG_SIMULATED_PAREN,          /* " (simulated)" */
    HK_MSG_SIMULATED_GPU_PAREN,      /* " (simulated GPU)" */
    /* episode progress ($/progress) */
    HK_MSG_PROGRESS_TITLE,           /* %s kernel, %s target */
    HK_MSG_PROGRESS_STARTING,
    HK_MSG_PROGRESS_STOPPING,
    HK_MSG_PROGRESS_STOPPED,
    HK_MSG_PROGRESS_NO_GPU,
    HK_MSG_PROGRESS_DONE_BEST,       /* %.2f speedup, %s HK_MSG_SIMULATED_GPU_PAREN or "" */
    HK_MSG_PROGRESS_DONE_NONE,
    HK_MSG_PROGRESS_FAILED,          /* %.480s error */
    HK_MSG_PROGRESS_SPEC_INFERRED,   /* %s path, %s notes */
    HK_MSG_STAGE_INIT,
    HK_MSG_STAGE_SPEC,
    HK_MSG_STAGE_BASELINE,
    HK_MSG_STAGE_OPTIMIZE,
    HK_MSG_STAGE_ACCURACY,
    HK_MSG_STAGE_VERIFY,
    HK_MSG_STAGE_REPORT,
    HK_MSG_UNKNOWN_ERROR,
    HK_MSG_SHOW_OPTIMIZE_FAILED,     /* %s kernel, %s target, %s error */
    /* result diagnostics */
    HK_MSG_DIAG_FAILED,              /* %.600s error */
    HK_MSG_DIAG_INTERRUPTED,         /* %.600s error */
    HK_MSG_DIAG_SEE_REPORT,
    HK_MSG_DIAG_SIMULATED_PREFIX,
    HK_MSG_DIAG_FASTER,              /* %.2f speedup */
    HK_MSG_DIAG_BANDWIDTH_SMALL,     /* %.2g percent */
    HK_MSG_DIAG_BANDWIDTH,           /* %.0f percent */
    HK_MSG_DIAG_ROOFLINE_SMALL,      /* %.2g percent */
    HK_MSG_DIAG_ROOFLINE,            /* %.0f percent */
    HK_MSG_DIAG_EPISODE,             /* %lld episode id */
    /* hover */
    HK_MSG_HOVER_OPTIMIZING,
    HK_MSG_HOVER_SPEC_INFERRED,
    HK_MSG_HOVER_HISTORY,
    HK_MSG_HOVER_HISTORY_SIMULATED,
    HK_MSG_HOVER_HISTORY_HEAD_MD,
    HK_MSG_HOVER_HISTORY_HEAD_TEXT,
    /* reports (server/report): headings and fixed labels */
    HK_MSG_REP_TITLE,
    HK_MSG_REP_SEP,
    HK_MSG_REP_SIM_BANNER,
    HK_MSG_REP_SIM_BANNER_HTML,
    HK_MSG_REP_SIMULATED_TAG,
    HK_MSG_REP_ERROR,
    HK_MSG_REP_RESULT,
    HK_MSG_REP_BASELINE,
    HK_MSG_REP_BEST,
    HK_MSG_REP_MEDIAN_TIME,
    HK_MSG_REP_P10_P90,
    HK_MSG_REP_SPREAD,
    HK_MSG_REP_BANDWIDTH,
    HK_MSG_REP_FLOP_RATE,
    HK_MSG_REP_ROOFLINE_PCT,
    HK_MSG_REP_REPETITIONS,
    HK_MSG_REP_SPEEDUP,
    HK_MSG_REP_SPEEDUP_WORD,
    HK_MSG_REP_SPREAD_FROM,
    HK_MSG_REP_NO_FASTER,
    HK_MSG_REP_ACCURACY,
    HK_MSG_REP_ACCURACY_HTML,
    HK_MSG_REP_BEST_INFERRED,
    HK_MSG_REP_BOTTLENECK_LINE,
    HK_MSG_REP_SKILLS_FIT,
    HK_MSG_REP_NONE,
    HK_MSG_REP_CREDITED,
    HK_MSG_REP_UNEXPLAINED,
    HK_MSG_REP_CREDIT_EVIDENCE,
    HK_MSG_REP_SHOWS,
    HK_MSG_REP_DOES_NOT_SHOW,
    HK_MSG_REP_A_METRIC,
    HK_MSG_REP_VERSIONS,
    HK_MSG_REP_VERSION,
    HK_MSG_REP_PARENT,
    HK_MSG_REP_STATUS,
    HK_MSG_REP_MEDIAN,
    HK_MSG_REP_SPEEDUP_SPREAD,
    HK_MSG_REP_MAX_ABS_ERR,
    HK_MSG_REP_MAX_REL_ERR,
    HK_MSG_REP_PRODUCED_BY,
    HK_MSG_REP_TAG_BASELINE,
    HK_MSG_REP_TAG_BEST,
    HK_MSG_REP_CHAIN,
    HK_MSG_REP_DIFF,
    HK_MSG_REP_TO,
    HK_MSG_REP_EPISODE,
    HK_MSG_REP_KERNEL,
    HK_MSG_REP_FILE,
    HK_MSG_REP_TARGET,
    HK_MSG_REP_ARCH,
    HK_MSG_REP_DEVICE,
    HK_MSG_REP_TOOLCHAIN,
    HK_MSG_REP_ENGINE,
    HK_MSG_REP_ENGINE_WORD,
    HK_MSG_REP_ON,
    HK_MSG_REP_STARTED,
    HK_MSG_REP_ENDED,
    HK_MSG_REP_DURATION,
    HK_MSG_REP_BOTTLENECK,
    HK_MSG_REP_ISOLATION,
    HK_MSG_REP_CORRECTNESS,
    HK_MSG_REP_PHYSICAL_FLOOR,
    HK_MSG_REP_LIBRARY,
    HK_MSG_REP_LIBRARY_WORDS,
    HK_MSG_REP_CREDIT_LIBRARY,
    HK_MSG_REP_MEMORY_SAFETY,
    HK_MSG_REP_SKILLS_TRIED,
    HK_MSG_REP_STACKS_NOT_APPLIED,
    HK_MSG_REP_SKILL,
    HK_MSG_REP_REWRITE,
    HK_MSG_REP_APPLIED,
    HK_MSG_REP_WHAT_STOPPED,
    HK_MSG_REP_YES,
    HK_MSG_REP_NO,
    HK_MSG_REP_STAGES,
    HK_MSG_REP_STAGE,
    HK_MSG_REP_EVENTS,
    HK_MSG_REP_LAST_MESSAGE,
    HK_MSG_REP_REJECTED,
    HK_MSG_REP_REASON,
    HK_MSG_REP_DETAILS,
    HK_MSG_REP_EVIDENCE_SUMMARY,
    HK_MSG_REP_SETTINGS_SUMMARY,
    HK_MSG_REP_FIELD,
    HK_MSG_REP_VALUE,
    HK_MSG_REP_GENERATED,
    /* hkls optimize's summary (not --json, not --events) */
    HK_MSG_CLI_EPISODE,
    HK_MSG_CLI_ERROR_SUFFIX,
    HK_MSG_CLI_KERNEL_LINE,
    HK_MSG_CLI_NO_GPU,
    HK_MSG_CLI_CANDIDATES,
    HK_MSG_CLI_NOT_CREDITED_COUNT,
    HK_MSG_CLI_BEHIND_COUNT,
    HK_MSG_CLI_SIMULATED,
    HK_MSG_CLI_BEST,
    HK_MSG_CLI_ROOFLINE,
    HK_MSG_CLI_COMMA,
    HK_MSG_CLI_MAX_REL_ERR,
    HK_MSG_CLI_PRODUCED_BY,
    HK_MSG_CLI_NO_FASTER,
    HK_MSG_CLI_REPORT,
    HK_MSG_CLI_BUILT,
    HK_MSG_CLI_SOURCES,
    /* resources (hover and resource hints) */
    HK_MSG_RES_SUMMARY,
    HK_MSG_RES_DCU_SPILLED,
    HK_MSG_RES_SMEM,
    HK_MSG_RES_OCCUPANCY,
    HK_MSG_RES_LIMITED_BY,
    HK_MSG_LIMIT_THREADS,
    HK_MSG_LIMIT_BLOCKS,
    HK_MSG_LIMIT_REGISTERS,
    HK_MSG_LIMIT_SHARED_MEMORY,
    HK_MSG_LIMIT_BARRIERS,
    HK_MSG_LIMIT_SGPRS,
    HK_MSG_HOVER_LAUNCH_CONFIGS,
    HK_MSG_HOVER_LAUNCHES,
    HK_MSG_HOVER_NONE_IN_FILE,
    HK_MSG_HOVER_RESOURCES,
    HK_MSG_HOVER_LAST_COMPILE,
    HK_MSG_HOVER_OLDER_VERSION,
    /* hkls doctor's human output (not --json): headings, what each missing tool costs,
     * the sandbox and install lines */
    HK_MSG_DOC_CAT_TOOLCHAINS,
    HK_MSG_DOC_CAT_GPUS,
    HK_MSG_DOC_CAT_PROFILERS,
    HK_MSG_DOC_CAT_CHECKERS,
    HK_MSG_DOC_CAT_DISASSEMBLERS,
    HK_MSG_DOC_CAT_RUNNERS,
    HK_MSG_DOC_CAT_ISOLATION,
    HK_MSG_DOC_COST_NVCC,
    HK_MSG_DOC_COST_PTXAS,
    HK_MSG_DOC_COST_HIPCC,
    HK_MSG_DOC_COST_NVIDIA_SMI,
    HK_MSG_DOC_COST_NVIDIA_DEV,
    HK_MSG_DOC_COST_ROCM_SMI,
    HK_MSG_DOC_COST_HY_SMI,
    HK_MSG_DOC_COST_KFD,
    HK_MSG_DOC_COST_NCU,
    HK_MSG_DOC_COST_NSYS,
    HK_MSG_DOC_COST_ROCPROF,
    HK_MSG_DOC_COST_HIPPROF,
    HK_MSG_DOC_COST_SANITIZER,
    HK_MSG_DOC_COST_CUOBJDUMP,
    HK_MSG_DOC_COST_NVDISASM,
    HK_MSG_DOC_COST_LLVM_OBJDUMP,
    HK_MSG_DOC_COST_SSH,
    HK_MSG_DOC_COST_SRUN,
    HK_MSG_DOC_COST_SBATCH,
    HK_MSG_DOC_COST_BWRAP,
    HK_MSG_DOC_COST_PRLIMIT,
    HK_MSG_DOC_QUERY_FAILED,
    HK_MSG_DOC_NO_OUTPUT,
    HK_MSG_DOC_SANDBOX_FAILS,
    HK_MSG_DOC_SANDBOX_FORCED,
    HK_MSG_DOC_WORKS_HERE,
    HK_MSG_DOC_YES,
    HK_MSG_DOC_NO,
    HK_MSG_DOC_THIS_HKLS,
    HK_MSG_DOC_HARNESS_MISSING,
    HK_MSG_DOC_SKILLS_MISSING,
    HK_MSG_DOC_CUPTI_MISSING,
    HK_MSG_DOC_OCCUPANCY_TABLES,
    HK_MSG_DOC_MISSING_COUNT,
    /* hkls trust and hkls spec: their lines for a person (the spec's JSON is unchanged) */
    HK_MSG_TRUST_ADDED,
    HK_MSG_TRUST_ALREADY,
    HK_MSG_TRUST_REMOVED,
    HK_MSG_TRUST_WAS_NOT,
    HK_MSG_SPEC_CLI_INFERRED,
    HK_MSG_SPEC_CLI_CHECK,
    HK_MSG_SPEC_CLI_WROTE,
    /* the hover's launch lines */
    HK_MSG_HOVER_LAUNCH_OF,
    HK_MSG_HOVER_KERNEL_AT_LINE,
    HK_MSG_HOVER_LINE_IN,
    HK_MSG_HOVER_FILE_SCOPE,
    HK_MSG_HOVER_GRID_BLOCK,
    HK_MSG_HOVER_SHARED_MEMORY,
    HK_MSG_HOVER_STREAM,
    /* hkls check's text report (not --json) */
    HK_MSG_CHECK_NOT_CHECKED,
    HK_MSG_CHECK_OK_ONE,
    HK_MSG_CHECK_OK_MANY,
    HK_MSG_CHECK_COMPILE_ERRORS,
    HK_MSG_CHECK_AT_LINE,
    HK_MSG_CHECK_NV_REGISTERS,
    HK_MSG_CHECK_NV_SPILLS,
    HK_MSG_CHECK_NO_SPILLS,
    HK_MSG_CHECK_NV_MEMORY,
    HK_MSG_CHECK_DCU_REGISTERS,
    HK_MSG_CHECK_DCU_AGPRS,
    HK_MSG_CHECK_DCU_SPILLS,
    HK_MSG_CHECK_DCU_MEMORY,
    HK_MSG_CHECK_OCCUPANCY,
    HK_MSG_CHECK_BLOCK_ASSUMED,
    HK_MSG_CHECK_BLOCK_FROM,
    HK_MSG_CHECK_A_LAUNCH,
    HK_MSG_CHECK_DYNAMIC_SHARED,
    HK_MSG_CHECK_LIMITED_BY,
    HK_MSG_CHECK_OCCUPANCY_UNKNOWN,
    HK_MSG_CHECK_NOT_COMPILED,
    /* hkls history's text (not --json): headings and fixed words; status names stay codes */
    HK_MSG_HIST_EPISODES,
    HK_MSG_HIST_VERSIONS,
    HK_MSG_HIST_NONE,
    HK_MSG_HIST_NO_GPU,
    HK_MSG_HIST_BEST,
    HK_MSG_HIST_SIMULATED,
    HK_MSG_HIST_NOTE,
    HK_MSG_HIST_WHY,
    HK_MSG_HIST_MAX_REL_ERR,
    HK_MSG_HIST_NO_HISTORY_FOR,
    HK_MSG_HIST_NO_HISTORY_YET,
    /* the episode worker's stage and progress details (its events' "message"; the editor
     * passes --lang to the worker) */
    HK_MSG_EPW_PEAKS,
    HK_MSG_EPW_INIT,
    HK_MSG_EPW_BASELINE_GPU,
    HK_MSG_EPW_BASELINE_NO_GPU,
    HK_MSG_EPW_COMPILING_BASELINE,
    HK_MSG_EPW_RUN_BASELINE_QUICK,
    HK_MSG_EPW_RUN_BASELINE_FULL,
    HK_MSG_EPW_BASELINE_SIZE,
    HK_MSG_EPW_SPEEDUP_HERE,
    HK_MSG_EPW_ACCURACY,
    HK_MSG_EPW_PASSED_MORE,
    HK_MSG_EPW_VERIFY,
    HK_MSG_EPW_INTERLEAVED,
    HK_MSG_EPW_REPORT,
    HK_MSG_EPW_CANDIDATE,
    HK_MSG_EPW_CANDIDATE_BEST,
    HK_MSG_EPW_SEARCH,
    HK_MSG_EPW_CMD_BASELINE_GPU,
    HK_MSG_EPW_CMD_BASELINE_NO_GPU,
    HK_MSG_EPW_CMD_RUNNING,
    HK_MSG_EPW_CMD_BASELINE,
    HK_MSG_EPW_CMD_SEARCH,
    HK_MSG_EPW_CMD_ACCURACY,
    HK_MSG_EPW_CMD_VERIFY,
    HK_MSG_EPW_CMD_INTERLEAVED,
    /* the server's window/showMessage lines */
    HK_MSG_SHOW_UNTRUSTED,
    HK_MSG_SHOW_TRUSTED_FULL,
    HK_MSG_SHOW_TRUSTED,
    HK_MSG_SHOW_UNTRUSTING,
    HK_MSG_SHOW_REPORT_OF,
    HK_MSG_SHOW_CONFIG_BAD,
    HK_MSG_SHOW_NOT_AN_OBJECT,
    HK_MSG_SHOW_NO_COMPILER,
    HK_MSG_SHOW_START_FAILED,
    HK_MSG_SHOW_ANALYSIS_OFF,
    /* hkls verify-candidate's verdict in words (not --json; the reason codes stay) */
    HK_MSG_VC_INTERLEAVED,
    HK_MSG_VC_FASTER,
    HK_MSG_VC_FLAGGED,
    HK_MSG_VC_NOT_FASTER,
    HK_MSG_VC_NOT_CREDITED,
    HK_MSG_VC_NOT_MEASURED,
    HK_MSG_VC_REJECTED,
    /* spec inference's notes and doubts (server/spec/infer_*.c, sk_note / sk_doubt): what
     * was guessed and from where, and why a guess is not sure enough to run on */
    HK_MSG_INF_INCLUDE_DIRS,
    HK_MSG_INF_SIZE_STRIDE,
    HK_MSG_INF_TIMING_HALVED,
    HK_MSG_INF_TIMING_GROWN_PAST,
    HK_MSG_INF_TIMING_GROWN_SHORT,
    HK_MSG_INF_TIMING_SHORT,
    HK_MSG_INF_TIMED_NOTHING,
    HK_MSG_INF_CHECK_GROWN,
    HK_MSG_INF_CHECK_HALVED,
    HK_MSG_INF_CHECK_CAPS,
    HK_MSG_INF_CHECK_PAST,
    HK_MSG_INF_CHECK_ONE_BLOCK,
    HK_MSG_INF_BRANCH_RUNS,
    HK_MSG_INF_BRANCH_NONE,
    HK_MSG_INF_TARG_GUESSED,
    HK_MSG_INF_TARG_SCALAR_T,
    HK_MSG_INF_TARG_LAUNCHER,
    HK_MSG_INF_TARG_FROM,
    HK_MSG_INF_BLOCK_SITE,
    HK_MSG_INF_BLOCK_CASE,
    HK_MSG_INF_BLOCK_IF,
    HK_MSG_INF_PASSED_AS_SIZE,
    HK_MSG_INF_FLAG_FALSE,
    HK_MSG_INF_BLOCK_PINNED,
    HK_MSG_INF_BLOCK_LAUNCH_BOUNDS,
    HK_MSG_INF_BLOCK_MISMATCH,
    HK_MSG_INF_BLOCK_GROWS,
    HK_MSG_INF_BLOCK_UNREAD,
    HK_MSG_INF_GRID_BOUND_ON,
    HK_MSG_INF_GRID_BOUND_GLOBAL,
    HK_MSG_INF_GRID_FLAT,
    HK_MSG_INF_GRID_FLAT_BOUND,
    HK_MSG_INF_GRID_GRIDDIM,
    HK_MSG_INF_GRID_SITE,
    HK_MSG_INF_GRID_BOUNDS_MATH,
    HK_MSG_INF_GRID_X_STRIDE,
    HK_MSG_INF_GRID_ROWS,
    HK_MSG_INF_GRID_STRIDE,
    HK_MSG_INF_GRID_ODD_SCALE,
    HK_MSG_INF_COUNT_ALLOC_AT,
    HK_MSG_INF_COUNT_ALLOC_LINE,
    HK_MSG_INF_COUNT_MOVED,
    HK_MSG_INF_COUNT_MOVED_PASS,
    HK_MSG_INF_MOVED_NO_COUNT,
    HK_MSG_INF_COUNT_DERIVED,
    HK_MSG_INF_COUNT_SUBSCRIPTS,
    HK_MSG_INF_COUNT_TEMPS,
    HK_MSG_INF_GRID_GUESSED_FOLLOW,
    HK_MSG_INF_GRID_GUESSED_1D,
    HK_MSG_INF_GRID_GUESSED_2D,
    HK_MSG_INF_SIZE_ASSERT_MAX,
    HK_MSG_INF_SHARED_IN_RANGE,
    HK_MSG_INF_SHARED_SCALAR,
    HK_MSG_INF_SIZES_BREAK_ASSERT,
    HK_MSG_INF_SIZES_SITE,
    HK_MSG_INF_SIZES_INVENTED,
    HK_MSG_INF_NO_BOUNDS_MULTIPLE,
    HK_MSG_INF_NO_BOUNDS_NONE,
    HK_MSG_INF_ROWS_OVERLAP,
    HK_MSG_INF_ROWS_GAPS,
    HK_MSG_INF_PASS_FEWER,
    HK_MSG_INF_COUNT_TABLE,
    HK_MSG_INF_VALUES_ROWS,
    HK_MSG_INF_VALUES_CLASS,
    HK_MSG_INF_VALUES_DIGIT,
    HK_MSG_INF_GATHER_GUARDED,
    HK_MSG_INF_GATHER_INVALID,
    HK_MSG_INF_STRUCT_AS,
    HK_MSG_INF_TYPE_UNKNOWN,
    HK_MSG_INF_INOUT_PARTIAL,
    HK_MSG_INF_INOUT_WINDOWS,
    HK_MSG_INF_INPUT,
    HK_MSG_INF_INOUT_DATA,
    HK_MSG_INF_COUNT_VIA_POINTER,
    HK_MSG_INF_COUNT_UNKNOWN,
    HK_MSG_INF_COUNT_GUESSED,
    HK_MSG_INF_VALUE_INVENTED,
    HK_MSG_INF_NO_WRITES,
    HK_MSG_INF_DYN_SHARED_SITE,
    HK_MSG_INF_DYN_SHARED_UNKNOWN,
    HK_MSG_INF_BYTES_FLOOR,
    HK_MSG_INF_BYTES_ONCE,
    HK_MSG_INF_BYTES_GATHER,
    HK_MSG_INF_BYTES_NONE,
    HK_MSG_INF_STAYS_BELOW,
    HK_MSG_INF_FLOPS_FMA,
    HK_MSG_INF_FLOPS_ELEM,
    HK_MSG_INF_NUMEL,
    HK_MSG_INF_DIM3_MEMBER,
    HK_MSG_INF_CONST_TABLE,
    HK_MSG_INF_CONST_STATIC,
    HK_MSG_INF_CONST_TYPE,
    HK_MSG_INF_CONST_INT,
    HK_MSG_INF_CONST_SIZE,
    HK_MSG_INF_CONST_TOO_MUCH,
    HK_MSG_INF_CONST_FILLED,
    HK_MSG_INF_FRAG_NO_SIZE_LEFT,
    HK_MSG_INF_FRAG_NO_SIZE_CAN,
    HK_MSG_INF_FRAG_STOPPED_BY,
    HK_MSG_INF_FRAG_HALVED_AND,
    HK_MSG_INF_FRAG_WITHIN,
    HK_MSG_INF_FRAG_SHORT,
    HK_MSG_INF_FRAG_BRANCH_TAKEN,
    HK_MSG_INF_FRAG_BRANCH_NONE,
    HK_MSG_INF_FRAG_TILES,
    HK_MSG_INF_FRAG_ONE_BLOCK,
    HK_MSG_INF_FRAG_RAGGED,
    HK_MSG_INF_FRAG_POW2,
    HK_MSG_INF_FRAG_SHMEM_UNREAD,
    HK_MSG_INF_FRAG_SHMEM_NONE,
    HK_MSG_INF_NO_SPEC_VALIDATES,    /* %s kernel, %s why */
    HK_MSG_INF_FRAG_GATHER_CAPPED,
    HK_MSG_INF_FRAG_GUESS_CAPPED,
    HK_MSG_INF_FRAG_GRID_OVER,
    HK_MSG_INF_FRAG_OUTPUT_GRID,
    HK_MSG_INF_FRAG_STRIDES,
    HK_MSG_INF_FRAG_PER_THREAD_LOOPS,
    HK_MSG_INF_FRAG_SURE_BUFFERS,
    HK_MSG_INF_FRAG_BUFFERS,
    HK_MSG_INF_FRAG_NO_EVAL,
    HK_MSG_INF_FRAG_PAST_8G,
    HK_MSG_INF_FRAG_PAST_DEVICE,
    HK_MSG_INF_FRAG_PAST_48K,
    HK_MSG_INF_FRAG_NO_MEMORY,
    HK_MSG_INF_FRAG_ASSERT,
    HK_MSG_INF_FRAG_ONE_PASS,
    HK_MSG_INF_FRAG_ROWS_SIDE,
    HK_MSG_INF_FRAG_SEP,
    HK_MSG_INF_FRAG_MULTIPLE_OF,
    HK_MSG_INF_FRAG_PER_THREAD,
    HK_MSG_INF_FRAG_AT_LINE,
    HK_MSG_INF_FRAG_GREW,
    HK_MSG_INF_FRAG_FROM_SITE,       /* %s file, %d line */
    HK_MSG_INF_FRAG_FROM_INST,       /* %s file, %d line */
    HK_MSG_INF_FRAG_MULTIPLIES,
    /* the per-key warnings on .hyperkernel.json in an untrusted folder (lsp/trust.c) */
    HK_MSG_TRUST_WHY_COMPILER,
    HK_MSG_TRUST_WHY_FLAGS,
    HK_MSG_TRUST_WHY_SIMULATE,
    HK_MSG_TRUST_WHY_ENGINES,
    HK_MSG_TRUST_WHY_IS_TRUSTED,
    HK_MSG_TRUST_WHY_INCLUDE,
    HK_MSG_TRUST_WHY_DEFAULT,
    HK_MSG_TRUST_KEY_IGNORED,
    /* hkls optimize without a spec (cli/optimize.c) and the editor's draft refusal */
    HK_MSG_OPT_SPEC_NONE,
    HK_MSG_OPT_SPEC_SAVE_FAILED,
    HK_MSG_OPT_SPEC_DRAFT,
    HK_MSG_OPT_SPEC_DRAFT_SAVED,
    HK_MSG_OPT_SPEC_INFERRED,
    HK_MSG_EP_DRAFT_CHECK,
    HK_MSG_EP_DRAFT_CHECK_EDIT,
    HK_MSG_COUNT
};

/* Cuts s where a bounded snprintf may have left part of a UTF-8 character (a Chinese
 * character is three bytes): drops a trailing incomplete sequence, keeps the rest. */
void hk_utf8_trim(char *s);

/* "en" or "zh-CN" (never NULL). */
const char *hk_lang_tag(enum hk_lang lang);

/* The language for a locale name: an LSP/BCP 47 tag ("zh-CN", "zh-Hans") or a POSIX
 * locale ("zh_CN.UTF-8"). Chinese except the Traditional forms (zh-TW, zh-HK, zh-MO,
 * zh-Hant) is HK_LANG_ZH_CN; anything else, NULL or empty is HK_LANG_EN. */
enum hk_lang hk_i18n_parse(const char *locale);

/* The language of a session: the client's locale from LSP initialize when given, else
 * env_lang (hk_i18n_env_locale()), else English. Either may be NULL. */
enum hk_lang hk_i18n_pick(const char *lsp_locale, const char *env_lang);

/* The locale of the messages category from the environment, POSIX order: LC_ALL, then
 * LC_MESSAGES, then LANG; the first non-empty one, or NULL. Borrowed from environ. */
const char *hk_i18n_env_locale(void);

/* The process-wide language (HK_LANG_EN until set). Set it before threads that format
 * messages start (the LSP loop sets it at initialize and on a configuration change). */
void hk_i18n_set(enum hk_lang lang);
enum hk_lang hk_i18n_lang(void);
/* Speaks lang on this thread only, whatever the process's language (-1: the process's
 * again); returns what the thread had (-1 or a language), to put back. Spec inference
 * writes its spec's notes in English this way while it tells the user in theirs. */
int hk_i18n_thread_lang(int lang);

/* The text of id in the current language / in lang. Static, never NULL: an id out of
 * range gives "". */
const char *hk_tr(enum hk_msg id);
const char *hk_tr_in(enum hk_lang lang, enum hk_msg id);
/* The table's entry as written (no fallback): NULL when missing. For the tests. */
const char *hk_msg_entry(enum hk_lang lang, enum hk_msg id);
/* Whether id's entry is a printf format (F in i18n.c) rather than plain text. */
bool hk_msg_is_format(enum hk_msg id);
/* The stable name of id ("ACT_OPTIMIZE_NVIDIA"), for tests and logs. */
const char *hk_msg_name(enum hk_msg id);

/* New string (hk_free): id's format in the current language, formatted with the
 * arguments. NULL on allocation failure. */
char *hk_trf(enum hk_msg id, ...);
char *hk_vtrf(enum hk_msg id, va_list ap);

#endif
