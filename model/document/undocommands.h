#pragma once

namespace railyard {

/// QUndoCommand::id() of every command, one enum so that mergeWith() never confuses two kinds.
enum UndoCommands {
    Cmd_MoveRanks = 1,
    Cmd_ApplyPlacement,
    Cmd_ChangeScenario,
    Cmd_ChangeWhiteboard,
    Cmd_ChangeCatalogue,
};

} // namespace railyard
