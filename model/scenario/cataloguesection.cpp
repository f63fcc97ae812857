#include "scenario/cataloguesection.h"

#include "base/fileio.h"
#include "base/jsonfields.h"
#include "base/physicalranges.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"

#include <nlohmann/json.hpp>

#include <climits>

namespace railyard {

std::string_view partKindName(PartKind k)
{
    constexpr std::string_view names[]
        = { "gpu", "server", "nic", "switch", "cable", "transceiver", "rack" };
    return names[static_cast<int>(k)];
}

} // namespace railyard

namespace railyard::cataloguesection {

namespace {

using nlohmann::json;

// A catalogue lists part classes, not parts: a few dozen in practice; 4096 is ample and keeps
// the matching (quadratic in the parts) instant.
constexpr std::size_t kCatalogueMaxParts = 4096;
constexpr std::size_t kCatalogueMaxText = 4096;
constexpr std::size_t kCatalogueMaxId = 128;
// A billion dollars for one part and a megawatt for one device are far above anything sold (an
// NVL72 rack draws ~130 kW): larger values are typing errors.
constexpr double kCatalogueMaxPriceUsd = 1e9;
constexpr double kCatalogueMaxWatts = 1e6;
// Switch radix: the largest single-chip switches have 512 ports (Tomahawk 6 at 200G); 65,536
// leaves room for chassis and keeps port counts in an int.
constexpr int kCatalogueMaxRadix = 1 << 16;

std::string catalogueFieldPath(const std::string &parent, std::string_view key)
{
    return jsonFieldPath(parent, key);
}

CableClass readCatalogueCableClass(const JsonFields &f)
{
    return f.choice("class", CableClass::Optics,
        { CableClass::Copper, CableClass::Active, CableClass::Optics }, cableClassName);
}

/// Whether two parts price the same bill-of-materials line.
bool catalogueSameTarget(const CataloguePart &a, const CataloguePart &b)
{
    if (a.kind != b.kind)
        return false;
    switch (a.kind) {
    case PartKind::Gpu:
        return a.device == b.device;
    case PartKind::Server:
        return a.gpus == b.gpus;
    case PartKind::Switch:
        return a.radix == b.radix && a.gbps == b.gbps;
    case PartKind::Cable:
        return a.cableClass == b.cableClass && a.gbps == b.gbps;
    case PartKind::Nic:
    case PartKind::Transceiver:
        return a.gbps == b.gbps;
    case PartKind::Rack:
        break;
    }
    return true;
}

CataloguePart readCataloguePart(const json &value, const std::string &path)
{
    JsonFields f(value, path,
        { "id", "kind", "device", "gpus", "radix", "gbps", "class", "price_usd", "typical_w",
            "max_w", "source", "illustrative" });
    f.rejectUnknown();
    CataloguePart p;
    p.id = f.string("id", "", kCatalogueMaxId, false);
    if (!f.has("id"))
        f.required("id");
    if (!f.has("kind"))
        f.required("kind");
    p.kind = f.choice("kind", PartKind::Rack,
        { PartKind::Gpu, PartKind::Server, PartKind::Nic, PartKind::Switch, PartKind::Cable,
            PartKind::Transceiver, PartKind::Rack },
        partKindName);
    // The keys that say what a part prices belong to its kind only.
    const auto only = [&](std::string_view key, std::initializer_list<PartKind> kinds) {
        if (!f.has(key))
            return;
        for (const PartKind k : kinds)
            if (k == p.kind)
                return;
        throw ScenarioError(
            f.fieldPath(key), "does not apply to a " + std::string(partKindName(p.kind)) + " part");
    };
    only("device", { PartKind::Gpu });
    only("gpus", { PartKind::Server });
    only("radix", { PartKind::Switch });
    only("class", { PartKind::Cable });
    only("gbps", { PartKind::Nic, PartKind::Switch, PartKind::Cable, PartKind::Transceiver });
    if (p.kind == PartKind::Gpu) {
        if (!f.has("device"))
            f.required("device");
        p.device = f.string("device", "", limits::kMaxNameBytes, false);
    }
    p.gpus = f.integer("gpus", 0, 0, limits::kMaxGpusPerServer);
    if (p.kind == PartKind::Switch) {
        if (!f.has("radix"))
            f.required("radix");
        p.radix = f.integer("radix", 0, 1, kCatalogueMaxRadix);
    }
    const bool hasSpeed = p.kind == PartKind::Nic || p.kind == PartKind::Switch
        || p.kind == PartKind::Cable || p.kind == PartKind::Transceiver;
    if (hasSpeed) {
        if (!f.has("gbps"))
            f.required("gbps");
        p.gbps = f.number("gbps", 0.0, ranges::kMinLinkGbps, ranges::kMaxLinkGbps);
    }
    if (p.kind == PartKind::Cable) {
        if (!f.has("class"))
            f.required("class");
        p.cableClass = readCatalogueCableClass(f);
    }
    p.priceUsd = f.number("price_usd", 0.0, 0.0, kCatalogueMaxPriceUsd);
    p.typicalW = f.number("typical_w", 0.0, 0.0, kCatalogueMaxWatts);
    p.maxW = f.number("max_w", p.typicalW, 0.0, kCatalogueMaxWatts);
    if (p.maxW < p.typicalW)
        throw ScenarioError(f.fieldPath("max_w"),
            "is below typical_w (" + std::to_string(p.typicalW)
                + " W): a maximum is never below the typical draw");
    p.source = f.string("source", "", kCatalogueMaxText);
    p.illustrative = f.boolean("illustrative", false);
    if (p.source.empty() && !p.illustrative)
        throw ScenarioError(path,
            "part \"" + p.id + "\" needs a \"source\" for its figures or \"illustrative\": true");
    return p;
}

/// The "sources" of a rules or economics object (its keys checked by the caller's table): a
/// non-empty text per key it names.
std::map<std::string, std::string> catalogueSourcesOf(const JsonFields &f, const json &object)
{
    f.rejectUnknown();
    std::map<std::string, std::string> out;
    for (auto it = object.begin(); it != object.end(); ++it)
        out[it.key()] = f.string(it.key(), "", kCatalogueMaxText, false);
    return out;
}

BomRules readCatalogueRules(
    const json &value, const std::string &path, std::map<std::string, std::string> &sources)
{
    JsonFields f(value, path,
        { "servers_per_rack", "switches_per_rack", "racks_per_row", "rack_width_m", "slack_m",
            "copper_max_m", "active_max_m", "sources" });
    f.rejectUnknown();
    BomRules r;
    // The bounds of checkBomRules (fabric/bom.cpp, where they are explained), checked here
    // first so the message names the field as the file spells it.
    r.serversPerRack = f.integer("servers_per_rack", r.serversPerRack, 0, 4096);
    r.switchesPerRack = f.integer("switches_per_rack", r.switchesPerRack, 1, 4096);
    r.racksPerRow = f.integer("racks_per_row", r.racksPerRow, 0, 4096);
    r.rackWidthM = f.number("rack_width_m", r.rackWidthM, 0.0, 1000.0, LowerBound::Exclusive);
    r.slackM = f.number("slack_m", r.slackM, 0.0, 1000.0);
    r.copperMaxM = f.number("copper_max_m", r.copperMaxM, 0.0, 1000.0);
    r.activeMaxM = f.number("active_max_m", r.activeMaxM, 0.0, 1000.0);
    checkBomRules(r, path);
    if (const json *s = f.find("sources")) {
        JsonFields sf(*s, f.fieldPath("sources"),
            { "servers_per_rack", "switches_per_rack", "racks_per_row", "rack_width_m", "slack_m",
                "copper_max_m", "active_max_m" });
        sources = catalogueSourcesOf(sf, *s);
    }
    return r;
}

CatalogueEconomics readCatalogueEconomics(
    const json &value, const std::string &path, std::map<std::string, std::string> &sources)
{
    JsonFields f(
        value, path, { "electricity_usd_per_kwh", "pue", "amortisation_years", "sources" });
    f.rejectUnknown();
    CatalogueEconomics e;
    // $100/kWh is a hundred times any grid price; a PUE of 10 would be a facility that mostly
    // heats; a century of amortisation is longer than any hardware lives.
    e.electricityUsdPerKwh
        = f.number("electricity_usd_per_kwh", e.electricityUsdPerKwh, 0.0, 100.0);
    e.pue = f.number("pue", e.pue, 1.0, 10.0);
    e.amortisationYears
        = f.number("amortisation_years", e.amortisationYears, 0.0, 100.0, LowerBound::Exclusive);
    if (const json *s = f.find("sources")) {
        JsonFields sf(
            *s, f.fieldPath("sources"), { "electricity_usd_per_kwh", "pue", "amortisation_years" });
        sources = catalogueSourcesOf(sf, *s);
    }
    return e;
}

template<typename Json>
Json catalogueSourcesToJson(const std::map<std::string, std::string> &sources)
{
    Json out = Json::object();
    for (const auto &[key, source] : sources)
        out[key] = source;
    return out;
}

} // namespace

PartsCatalogue readCatalogue(const json &value, const std::string &path)
{
    JsonFields f(value, path, { "version", "name", "parts", "rules", "economics" });
    PartsCatalogue c;
    // The version first: a newer layout may have new keys.
    c.version = static_cast<int>(f.requiredInteger("version", 1, INT_MAX));
    if (c.version > kCatalogueVersion)
        throw ScenarioError(f.fieldPath("version"),
            "catalogue version " + std::to_string(c.version)
                + " is newer than this Railyard reads (up to " + std::to_string(kCatalogueVersion)
                + ")");
    f.rejectUnknown();
    c.name = f.string("name", "", limits::kMaxNameBytes);
    if (const json *parts = f.array("parts", kCatalogueMaxParts))
        for (std::size_t i = 0; i < parts->size(); ++i) {
            const std::string at = jsonElementPath(f.fieldPath("parts"), i);
            CataloguePart p = readCataloguePart((*parts)[i], at);
            for (std::size_t j = 0; j < c.parts.size(); ++j) {
                if (c.parts[j].id == p.id)
                    throw ScenarioError(catalogueFieldPath(at, "id"),
                        "\"" + p.id + "\" is also the id of parts[" + std::to_string(j) + "]");
                if (catalogueSameTarget(c.parts[j], p))
                    throw ScenarioError(at,
                        "prices the same " + std::string(partKindName(p.kind)) + " as parts["
                            + std::to_string(j) + "] (\"" + c.parts[j].id + "\")");
            }
            c.parts.push_back(std::move(p));
        }
    if (const json *rules = f.find("rules"))
        c.rules = readCatalogueRules(*rules, f.fieldPath("rules"), c.ruleSources);
    if (const json *economics = f.find("economics"))
        c.economics
            = readCatalogueEconomics(*economics, f.fieldPath("economics"), c.economicsSources);
    return c;
}

template<typename Json> Json catalogueToJson(const PartsCatalogue &c)
{
    Json out;
    out["version"] = c.version;
    out["name"] = c.name;
    Json parts = Json::array();
    for (const CataloguePart &p : c.parts) {
        Json j;
        j["id"] = p.id;
        j["kind"] = std::string(partKindName(p.kind));
        switch (p.kind) {
        case PartKind::Gpu:
            j["device"] = p.device;
            break;
        case PartKind::Server:
            if (p.gpus > 0)
                j["gpus"] = p.gpus;
            break;
        case PartKind::Switch:
            j["radix"] = p.radix;
            j["gbps"] = p.gbps;
            break;
        case PartKind::Cable:
            j["class"] = std::string(cableClassName(p.cableClass));
            j["gbps"] = p.gbps;
            break;
        case PartKind::Nic:
        case PartKind::Transceiver:
            j["gbps"] = p.gbps;
            break;
        case PartKind::Rack:
            break;
        }
        j["price_usd"] = p.priceUsd;
        j["typical_w"] = p.typicalW;
        j["max_w"] = p.maxW;
        if (!p.source.empty())
            j["source"] = p.source;
        if (p.illustrative)
            j["illustrative"] = true;
        parts.push_back(std::move(j));
    }
    out["parts"] = std::move(parts);
    Json rules;
    rules["servers_per_rack"] = c.rules.serversPerRack;
    rules["switches_per_rack"] = c.rules.switchesPerRack;
    rules["racks_per_row"] = c.rules.racksPerRow;
    rules["rack_width_m"] = c.rules.rackWidthM;
    rules["slack_m"] = c.rules.slackM;
    rules["copper_max_m"] = c.rules.copperMaxM;
    rules["active_max_m"] = c.rules.activeMaxM;
    rules["sources"] = catalogueSourcesToJson<Json>(c.ruleSources);
    out["rules"] = std::move(rules);
    Json economics;
    economics["electricity_usd_per_kwh"] = c.economics.electricityUsdPerKwh;
    economics["pue"] = c.economics.pue;
    economics["amortisation_years"] = c.economics.amortisationYears;
    economics["sources"] = catalogueSourcesToJson<Json>(c.economicsSources);
    out["economics"] = std::move(economics);
    return out;
}

template nlohmann::json catalogueToJson<nlohmann::json>(const PartsCatalogue &);
template nlohmann::ordered_json catalogueToJson<nlohmann::ordered_json>(const PartsCatalogue &);

PartsCatalogue parseCatalogueText(const std::string &text)
{
    if (static_cast<std::int64_t>(text.size()) > limits::kMaxFileBytes)
        throw ScenarioError("",
            "catalogue text is " + std::to_string(text.size()) + " bytes, more than the limit of "
                + std::to_string(limits::kMaxFileBytes) + " bytes (64 MiB)");
    return readCatalogue(parseJsonGuarded(text, limits::kMaxJsonDepth), "");
}

PartsCatalogue loadCatalogueFile(const std::string &path)
{
    const std::string text
        = readFileLimited(path, limits::kMaxFileBytes, "a catalogue file", " (64 MiB)");
    try {
        return parseCatalogueText(text);
    } catch (const ScenarioError &e) {
        throw ScenarioError(e.field().empty() ? path : path + ": " + e.field(), e.reason());
    }
}

std::string catalogueToText(const PartsCatalogue &catalogue)
{
    return catalogueToJson<nlohmann::ordered_json>(catalogue).dump(
               2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
        + "\n";
}

} // namespace railyard::cataloguesection
