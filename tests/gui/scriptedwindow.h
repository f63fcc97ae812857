#pragma once

#include "document/scenariodocument.h"
#include "mainwindow.h"
#include "scripteddialogs.h"

#include <QSize>

#include <memory>

namespace railyard {

/**
 * The main window as the GUI suites drive it: its modal questions answered by ScriptedDialogs
 * (`dialogs`), at `size` when one is given, and shown unless `show` is false.
 */
struct ScriptedWindow
{
    MainWindow window;
    ScriptedDialogs *dialogs;

    explicit ScriptedWindow(QSize size = QSize(), bool show = true)
    {
        auto owned = std::make_unique<ScriptedDialogs>();
        dialogs = owned.get();
        window.setDialogs(std::move(owned));
        if (size.isValid())
            window.resize(size);
        if (show)
            window.show();
    }
    ScenarioDocument *doc() const { return window.document(); }
};

} // namespace railyard
