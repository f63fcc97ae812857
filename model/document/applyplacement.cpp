#include "document/applyplacement.h"

#include "document/undocommands.h"

namespace railyard {

namespace {

QString placementText(Placement p)
{
    switch (p) {
    case Placement::Packed:
        return QStringLiteral("Apply packed placement");
    case Placement::RailAligned:
        return QStringLiteral("Apply rail-aligned placement");
    case Placement::Scattered:
        return QStringLiteral("Apply scattered placement");
    }
    return QStringLiteral("Apply placement");
}

} // namespace

ApplyPlacement::ApplyPlacement(ScenarioDocument *document, Scenario before, Scenario after,
                               QUndoCommand *parent)
    : ChangeScenario(document, std::move(before), std::move(after), QString(), false, parent)
{
    setText(placementText(placement()));
}

int ApplyPlacement::id() const
{
    return Cmd_ApplyPlacement;
}

} // namespace railyard
