#include "scenario/annotation.h"

#include "base/scenarioerror.h"

#include <charconv>
#include <climits>

namespace railyard {

std::string_view annotationKindName(Annotation::Kind kind)
{
    return kind == Annotation::Kind::Note ? "note" : "arrow";
}

std::string anchorText(const AnnotationAnchor &anchor)
{
    const char *kind = anchor.kind == AnnotationAnchor::Kind::Server ? "server"
        : anchor.kind == AnnotationAnchor::Kind::Rank                ? "rank"
                                                                     : "link";
    return std::string(kind) + ":" + std::to_string(anchor.index);
}

AnnotationAnchor parseAnchor(std::string_view text, const std::string &field)
{
    const std::size_t colon = text.find(':');
    const std::string_view kind = text.substr(0, colon);
    AnnotationAnchor a;
    if (kind == "server")
        a.kind = AnnotationAnchor::Kind::Server;
    else if (kind == "rank")
        a.kind = AnnotationAnchor::Kind::Rank;
    else if (kind == "link")
        a.kind = AnnotationAnchor::Kind::Link;
    else
        throw ScenarioError(field, "expected \"server:N\", \"rank:N\" or \"link:N\", got \""
                                       + std::string(text.substr(0, 40)) + "\"");
    const std::string_view number = colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
    long long value = -1;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (number.empty() || error != std::errc() || end != number.data() + number.size() || value < 0
        || value > INT_MAX)
        throw ScenarioError(field, "\"" + std::string(text.substr(0, 40))
                                       + "\": the index after the colon must be a whole number >= 0");
    a.index = static_cast<int>(value);
    return a;
}

} // namespace railyard
