#include "scenario/scenarionotes.h"

#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "base/text.h"
#include "scenario/scenariosections.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>

namespace railyard::scenarionotes {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxTimestampBytes = 64;

/// An anchor's index within the limits of what it names. The fabric's own size is not checked
/// here: an edit of the fabric or a remap may leave a pin without its server or rank, and the
/// file must still open (the view shows such a mark as detached).
AnnotationAnchor readAnchor(const json &value, const std::string &path)
{
    if (!value.is_string())
        throw ScenarioError(path, "expected a string such as \"server:3\", \"rank:17\" or \"link:240\", got "
                                      + jsonTypeName(value));
    const AnnotationAnchor a = parseAnchor(value.get_ref<const std::string &>(), path);
    const std::int64_t limit = a.kind == AnnotationAnchor::Kind::Server ? limits::kMaxServers
        : a.kind == AnnotationAnchor::Kind::Rank                        ? limits::kMaxGpus
                                                                        : limits::kMaxLinks;
    if (a.index >= limit)
        throw ScenarioError(path, anchorText(a) + " is beyond the largest fabric Railyard builds ("
                                      + std::to_string(limit) + ")");
    return a;
}

Annotation readAnnotation(const json &value, const std::string &path)
{
    JsonFields f(
        value, path, { "kind", "text", "anchor", "offset", "colour", "from", "to", "snapshot" });
    f.rejectUnknown();
    Annotation a;
    if (f.has("snapshot")) {
        a.snapshot = f.string("snapshot", a.snapshot, limits::kMaxNameBytes, false);
        requirePrintableUtf8(f.fieldPath("snapshot"), a.snapshot);
    }
    a.kind = f.choice("kind", Annotation::Kind::Note, {Annotation::Kind::Note, Annotation::Kind::Arrow},
                      annotationKindName);
    a.text = f.string("text", a.text, kMaxNoteBytes);
    requirePrintableUtf8(f.fieldPath("text"), a.text, true); // a note may have several lines
    if (a.kind == Annotation::Kind::Note) {
        for (const char *arrowOnly : {"from", "to"})
            if (f.has(arrowOnly))
                throw ScenarioError(f.fieldPath(arrowOnly), "only an arrow has this field (a note has \"anchor\")");
        if (a.text.empty())
            throw ScenarioError(f.fieldPath("text"), "a note needs some text");
        a.anchor = readAnchor(f.required("anchor"), f.fieldPath("anchor"));
        if (const json *offset = f.array("offset", 16)) {
            if (offset->size() != 2)
                throw ScenarioError(f.fieldPath("offset"), "expected [dx, dy], got " + std::to_string(offset->size())
                                                               + " numbers");
            a.dx = jsonNumber((*offset)[0], jsonElementPath(f.fieldPath("offset"), 0), -1e7, 1e7);
            a.dy = jsonNumber((*offset)[1], jsonElementPath(f.fieldPath("offset"), 1), -1e7, 1e7);
        }
        const std::string colour = f.string("colour", a.colour, 16);
        if (std::find(std::begin(kNoteColours), std::end(kNoteColours), colour) == std::end(kNoteColours))
            throw ScenarioError(f.fieldPath("colour"), "\"" + colour + "\" is not a note colour (yellow, blue, green, pink)");
        a.colour = colour;
    } else {
        for (const char *noteOnly : {"anchor", "offset", "colour"})
            if (f.has(noteOnly))
                throw ScenarioError(f.fieldPath(noteOnly), "only a note has this field (an arrow has \"from\" and \"to\")");
        a.anchor = readAnchor(f.required("from"), f.fieldPath("from"));
        a.target = readAnchor(f.required("to"), f.fieldPath("to"));
        if (a.anchor == a.target)
            throw ScenarioError(f.fieldPath("to"), "an arrow needs two different ends (both are " + anchorText(a.anchor) + ")");
    }
    return a;
}

/// A snapshot's slots: one per rank of its own layout, each used once. The current fabric may
/// since have shrunk; restoring then reports it, the file still opens.
std::vector<int> readSlots(const json &value, const std::string &path, std::int64_t world)
{
    if (!value.is_array())
        throw ScenarioError(path, "expected an array of slot numbers, got " + jsonTypeName(value));
    if (value.size() != static_cast<std::size_t>(world))
        throw ScenarioError(path, "has " + std::to_string(value.size()) + " entries but the snapshot's layout has "
                                      + std::to_string(world) + " ranks (tp*pp*dp*cp)");
    std::vector<int> slots;
    slots.reserve(value.size());
    for (std::size_t r = 0; r < value.size(); ++r)
        slots.push_back(static_cast<int>(jsonInteger(value[r], jsonElementPath(path, r), 0, limits::kMaxGpus - 1)));
    std::vector<int> sorted = slots;
    std::sort(sorted.begin(), sorted.end());
    if (const auto twice = std::adjacent_find(sorted.begin(), sorted.end()); twice != sorted.end()) {
        const auto first = std::find(slots.begin(), slots.end(), *twice);
        const auto second = std::find(first + 1, slots.end(), *twice);
        throw ScenarioError(jsonElementPath(path, static_cast<std::size_t>(second - slots.begin())),
                            "slot " + std::to_string(*twice) + " is already taken by rank "
                                + std::to_string(first - slots.begin()));
    }
    return slots;
}

Snapshot readSnapshot(const json &value, const std::string &path, const FabricSpec &fabric)
{
    JsonFields f(value, path, {"name", "taken_at", "parallel", "global_batch", "mapping", "failures"});
    f.rejectUnknown();
    Snapshot snap;
    f.required("name");
    snap.name = f.string("name", snap.name, limits::kMaxNameBytes, false);
    snap.takenAt = f.string("taken_at", snap.takenAt, kMaxTimestampBytes);
    requirePrintableUtf8(f.fieldPath("name"), snap.name);
    requirePrintableUtf8(f.fieldPath("taken_at"), snap.takenAt);
    snap.globalBatch = static_cast<int>(f.requiredInteger("global_batch", 1, INT_MAX));
    // The section readers name their own paths ("parallel.tp"); inside a snapshot the path
    // starts with the snapshot's.
    try {
        Scenario layout;
        scenariosections::readParallel(f.required("parallel"), limits::kMaxGpus, layout);
        snap.degrees = layout.degrees;
        snap.order = layout.order;
        if (const json *failures = f.find("failures"))
            snap.failures = scenariosections::readFailures(*failures, fabric);
    } catch (const ScenarioError &e) {
        throw ScenarioError(jsonFieldPath(path, e.field()), e.reason());
    }
    const std::int64_t world = std::int64_t{snap.degrees.tp} * snap.degrees.pp * snap.degrees.dp * snap.degrees.cp;
    JsonFields mapping(f.required("mapping"), f.fieldPath("mapping"), {"placement", "slots", "version"});
    mapping.rejectUnknown();
    snap.placement = mapping.choice("placement", snap.placement,
                                    {Placement::Packed, Placement::RailAligned, Placement::Scattered}, placementName);
    snap.mappingVersion = mapping.integer("version", snap.mappingVersion, 1, INT_MAX);
    snap.slots = readSlots(mapping.required("slots"), mapping.fieldPath("slots"), world);
    return snap;
}

} // namespace

std::vector<Annotation> readAnnotations(const json &value)
{
    if (!value.is_array())
        throw ScenarioError("annotations", "expected an array of notes and arrows, got " + jsonTypeName(value));
    if (value.size() > kMaxAnnotations)
        throw ScenarioError("annotations", "has " + std::to_string(value.size()) + " entries, more than the limit of "
                                               + std::to_string(kMaxAnnotations));
    std::vector<Annotation> out;
    out.reserve(value.size());
    for (std::size_t i = 0; i < value.size(); ++i)
        out.push_back(readAnnotation(value[i], jsonElementPath("annotations", i)));
    return out;
}

std::vector<Snapshot> readSnapshots(const json &value, const FabricSpec &fabric)
{
    if (!value.is_array())
        throw ScenarioError("snapshots", "expected an array of named mappings, got " + jsonTypeName(value));
    if (value.size() > kMaxSnapshots)
        throw ScenarioError("snapshots", "has " + std::to_string(value.size()) + " entries, more than the limit of "
                                             + std::to_string(kMaxSnapshots));
    std::vector<Snapshot> out;
    for (std::size_t i = 0; i < value.size(); ++i) {
        const std::string path = jsonElementPath("snapshots", i);
        Snapshot snap = readSnapshot(value[i], path, fabric);
        for (std::size_t j = 0; j < out.size(); ++j)
            if (out[j].name == snap.name)
                throw ScenarioError(path + ".name", "\"" + snap.name + "\" is already the name of snapshots["
                                                         + std::to_string(j) + "]");
        out.push_back(std::move(snap));
    }
    return out;
}

template<typename Json>
Json annotationsToJson(const std::vector<Annotation> &annotations)
{
    Json out = Json::array();
    for (const Annotation &a : annotations) {
        Json j;
        j["kind"] = std::string(annotationKindName(a.kind));
        j["text"] = a.text;
        if (!a.snapshot.empty())
            j["snapshot"] = a.snapshot;
        if (a.kind == Annotation::Kind::Note) {
            j["anchor"] = anchorText(a.anchor);
            j["offset"] = Json::array({a.dx, a.dy});
            j["colour"] = a.colour;
        } else {
            j["from"] = anchorText(a.anchor);
            j["to"] = anchorText(a.target);
        }
        out.push_back(std::move(j));
    }
    return out;
}

template<typename Json>
Json snapshotsToJson(const std::vector<Snapshot> &snapshots)
{
    Json out = Json::array();
    for (const Snapshot &s : snapshots) {
        Json parallel;
        parallel["tp"] = s.degrees.tp;
        parallel["pp"] = s.degrees.pp;
        parallel["dp"] = s.degrees.dp;
        parallel["cp"] = s.degrees.cp;
        parallel["ep"] = s.degrees.ep;
        parallel["order"] = s.order;
        Json mapping;
        mapping["placement"] = std::string(placementName(s.placement));
        mapping["slots"] = s.slots;
        mapping["version"] = s.mappingVersion;
        Json j;
        j["name"] = s.name;
        j["taken_at"] = s.takenAt;
        j["parallel"] = std::move(parallel);
        j["global_batch"] = s.globalBatch;
        j["mapping"] = std::move(mapping);
        if (!s.failures.empty()) {
            Json failures = Json::array();
            for (const FailedComponent &f : s.failures)
                failures.push_back(failureText(f));
            j["failures"] = std::move(failures);
        }
        out.push_back(std::move(j));
    }
    return out;
}

template nlohmann::json annotationsToJson<nlohmann::json>(const std::vector<Annotation> &);
template nlohmann::ordered_json annotationsToJson<nlohmann::ordered_json>(const std::vector<Annotation> &);
template nlohmann::json snapshotsToJson<nlohmann::json>(const std::vector<Snapshot> &);
template nlohmann::ordered_json snapshotsToJson<nlohmann::ordered_json>(const std::vector<Snapshot> &);

} // namespace railyard::scenarionotes
