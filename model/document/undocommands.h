#pragma once

namespace railyard {

/// QUndoCommand::id() of every command, one enum so that mergeWith() never confuses two kinds.
enum UndoCommands {
    Cmd_SwapRanks = 1,
    Cmd_MoveRanks,
    Cmd_ApplyPlacement,
    Cmd_ChangeScenario,
};

} // namespace railyard
