#pragma once

// What the nccl-tests reader's suites (tst_nccltestslog, tst_nccltestsshapes) share: the error
// a text gives, and the result table header nccl-tests prints (src/util.cu, writeResultHeader).
#include "base/scenarioerror.h"
#include "io/nccltestslog.h"

#include <QString>

#include <string>

namespace railyard::testing {

/// The parse error's message, or "" when the text parses.
inline QString errorOf(const std::string &text, const std::string &file = "bad.log")
{
    try {
        parseNcclTestsLog(text, file);
    } catch (const ScenarioError &e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

inline const char *const kHeader
    = "#                                                              out-of-place                "
      "       in-place          \n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
      "(us)  (GB/s)  (GB/s)       \n";

} // namespace railyard::testing
