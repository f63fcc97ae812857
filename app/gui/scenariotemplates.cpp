#include "scenariotemplates.h"

#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"

#include <QDir>
#include <QFile>

namespace railyard {

QString defaultScenarioResource()
{
    return QStringLiteral(":/scenarios/default-scenario.json");
}

Scenario loadResourceScenario(const QString &resource)
{
    QFile file(resource);
    if (!file.open(QIODevice::ReadOnly))
        throw ScenarioError("", "the embedded scenario " + resource.toStdString() + " is missing");
    return parseScenario(file.readAll().toStdString());
}

QList<ScenarioTemplate> scenarioTemplates()
{
    QStringList resources { defaultScenarioResource() };
    const QDir samples(QStringLiteral(":/samples"));
    for (const QString &name :
        samples.entryList({ QStringLiteral("*.json") }, QDir::Files, QDir::Name))
        resources << samples.filePath(name);

    QList<ScenarioTemplate> out;
    for (const QString &resource : std::as_const(resources)) {
        try {
            const Scenario s = loadResourceScenario(resource);
            out.append({ resource, QString::fromStdString(s.name), scenarioSummary(s) });
        } catch (const ScenarioError &) {
            // A sample the loader refuses is not offered (the samples test catches it).
        }
    }
    return out;
}

QString scenarioSummary(const Scenario &s)
{
    QString kind = s.fabric.kind == FabricKind::Tor ? QStringLiteral("ToR")
        : s.fabric.kind == FabricKind::RailOnly     ? QStringLiteral("rail-only")
                                                    : QStringLiteral("rail-optimised");
    if (s.fabric.planes > 1)
        kind += QStringLiteral(", %1 planes").arg(s.fabric.planes);
    QString degrees = QStringLiteral("TP %1 × PP %2 × DP %3")
                          .arg(s.degrees.tp)
                          .arg(s.degrees.pp)
                          .arg(s.degrees.dp);
    if (s.degrees.cp > 1)
        degrees += QStringLiteral(" × CP %1").arg(s.degrees.cp);
    if (s.degrees.ep > 1)
        degrees += QStringLiteral(", EP %1").arg(s.degrees.ep);
    return QStringLiteral("%1 × %2 GPUs, %3 · %4 · %5")
        .arg(s.fabric.servers)
        .arg(s.fabric.gpusPerServer)
        .arg(kind, degrees, QString::fromStdString(s.model.name));
}

} // namespace railyard
