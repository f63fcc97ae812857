// railyard: the desktop explorer. `railyard [FILE]` opens FILE (default: the embedded
// 128-GPU sample, samples/seed-128.json); `railyard --screenshot OUT.png [FILE]` renders the main
// window to OUT.png and exits.
// `--baseline A.json` pins A as the comparison baseline; `--panel NAME` raises a dock;
// `--export-dialog FORMAT` opens File > Export on FORMAT (with --screenshot, the dialog is the
// picture); `--version` prints "railyard X.Y.Z" without opening a window.
// `--watch DIM:RANK[:OP]` (or DIM:all) plays a collective under the fabric (View > Watch a
// Collective); with `--frames DIR` its frames are written to DIR and the program exits.
#include "collectivecontroller.h"
#include "consoledialogs.h"
#include "document/scenariodocument.h"
#include "export/exporters.h"
#include "exportdialog.h"
#include "fabricview.h"
#include "guidecontroller.h"
#include "mainactions.h"
#include "mainwindow.h"
#include "measuredcontroller.h"
#include "presentationmode.h"
#include "studycontroller.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QStatusBar>
#include <QTimer>

#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

namespace {

/// Lets coalesced view refreshes (chart timers, deferred layouts) run before the grab.
void settle(railyard::MainWindow &window)
{
    window.document()->waitForEvaluation();
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 300)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
}

} // namespace

int main(int argc, char *argv[])
{
    // Before QApplication: `railyard --version` answers without a display or a window.
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-v") == 0) {
            std::printf("railyard %s\n", RAILYARD_VERSION);
            return 0;
        }
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Railyard"));
    QApplication::setOrganizationName(QStringLiteral("Railyard"));
    QApplication::setApplicationVersion(QStringLiteral(RAILYARD_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Explore how a parallel layout lands on a datacenter fabric."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("Scenario file to open (default: the seed's 128-GPU job)."));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Render the main window to OUT.png and exit."),
                                        QStringLiteral("OUT.png"));
    parser.addOption(screenshot);
    const QCommandLineOption baseline(QStringLiteral("baseline"),
                                      QStringLiteral("Compare the document against A.json (Study > Compare with File)."),
                                      QStringLiteral("A.json"));
    parser.addOption(baseline);
    const QCommandLineOption panel(QStringLiteral("panel"),
                                   QStringLiteral("Show and raise a panel: ranks, inspector, charts, timeline, compare, "
                                                  "experts, inference, calibration."),
                                   QStringLiteral("NAME"));
    parser.addOption(panel);
    const QCommandLineOption size(QStringLiteral("size"),
                                  QStringLiteral("Open the window at WIDTHxHEIGHT logical pixels (e.g. 1280x720)."),
                                  QStringLiteral("WxH"));
    parser.addOption(size);
    const QCommandLineOption presentation(QStringLiteral("presentation"),
                                          QStringLiteral("Start in presentation mode (F5 leaves it)."));
    parser.addOption(presentation);
    const QCommandLineOption room(QStringLiteral("room"),
        QStringLiteral(
            "Presentation mode's room size: small, medium or large (kept for the next start)."),
        QStringLiteral("SIZE"));
    parser.addOption(room);
    const QCommandLineOption exportDialog(QStringLiteral("export-dialog"),
        QStringLiteral("Open Export > Mapping / Launcher Files on FORMAT (with --screenshot, "
                       "the dialog is rendered)."),
        QStringLiteral("FORMAT"));
    parser.addOption(exportDialog);
    const QCommandLineOption watch(QStringLiteral("watch"),
        QStringLiteral("Watch a collective: DIM:RANK[:OP] (tp, pp, dp, ep, cp; OP the op's index, "
                       "default 0) or DIM:all for every group of the dimension."),
        QStringLiteral("DIM:RANK"));
    parser.addOption(watch);
    const QCommandLineOption frames(QStringLiteral("frames"),
        QStringLiteral("With --watch: write its frames (PNG sequence and animated PNG) to DIR and "
                       "exit."),
        QStringLiteral("DIR"));
    parser.addOption(frames);
    const QCommandLineOption measured(QStringLiteral("measured"),
        QStringLiteral("Import a training log or profiler trace (File > Import Training Log or "
                       "Trace…); repeat it for several."),
        QStringLiteral("FILE"));
    parser.addOption(measured);
    parser.process(app);
    std::optional<railyard::WatchTarget> watchTarget;
    if (parser.isSet(watch)) {
        railyard::WatchTarget t;
        if (!railyard::CollectiveController::parseTarget(parser.value(watch), t)) {
            std::fprintf(stderr,
                "railyard: --watch: expected DIM:RANK[:OP] or DIM:all with DIM one of tp, pp, dp, "
                "ep, cp, got '%s'\n",
                qPrintable(parser.value(watch)));
            return 2;
        }
        watchTarget = t;
    }
    if (parser.isSet(frames) && !watchTarget) {
        std::fprintf(stderr, "railyard: --frames needs --watch\n");
        return 2;
    }
    railyard::ExportFormat exportFormat {};
    if (parser.isSet(exportDialog)
        && !railyard::parseExportFormat(parser.value(exportDialog).toStdString(), exportFormat)) {
        std::fprintf(stderr, "railyard: --export-dialog: unknown format '%s'\n",
            qPrintable(parser.value(exportDialog)));
        return 2;
    }
    QSize windowSize;
    if (parser.isSet(size)) {
        const QStringList parts = parser.value(size).split(QLatin1Char('x'));
        const int w = parts.size() == 2 ? parts[0].toInt() : 0;
        const int h = parts.size() == 2 ? parts[1].toInt() : 0;
        if (w < 320 || h < 240 || w > 16384 || h > 16384) {
            std::fprintf(stderr, "railyard: --size: expected WIDTHxHEIGHT between 320x240 and 16384x16384, got '%s'\n",
                         qPrintable(parser.value(size)));
            return 2;
        }
        windowSize = QSize(w, h);
    }
    // --frames runs like --screenshot: no autosave, no restore question, messages to stderr.
    const bool shoot = parser.isSet(screenshot) || parser.isSet(frames);
    int roomSize = -1;
    if (parser.isSet(room)) {
        const QStringList rooms { QStringLiteral("small"), QStringLiteral("medium"),
            QStringLiteral("large") };
        roomSize = static_cast<int>(rooms.indexOf(parser.value(room)));
        if (roomSize < 0) {
            std::fprintf(stderr, "railyard: --room: expected small, medium or large, got '%s'\n",
                qPrintable(parser.value(room)));
            return 2;
        }
    }

    railyard::MainWindow window;
    // No window to show a message box in: loader messages go to stderr.
    if (shoot)
        window.setDialogs(std::make_unique<railyard::ConsoleDialogs>());
    if (!shoot) {
        window.readSettings();
        // --screenshot neither autosaves nor touches a crashed session's autosave.
        window.enableAutoSave();
    }
    if (!parser.positionalArguments().isEmpty()) {
        const QString file = parser.positionalArguments().constFirst();
        if (!window.openFile(file) && shoot)
            return 1;
    }
    if (parser.isSet(baseline) && !window.studies()->pinBaselineFromFile(parser.value(baseline)) && shoot)
        return 1;
    if (parser.isSet(measured)) {
        window.document()->waitForEvaluation();
        auto *controller = window.findChild<railyard::MeasuredController *>();
        if (!controller->openFiles(parser.values(measured)) && shoot)
            return 1;
    }
    QDockWidget *raised = nullptr;
    if (parser.isSet(panel)) {
        raised = window.findChild<QDockWidget *>(parser.value(panel) + QStringLiteral("Dock"));
        if (!raised) {
            std::fprintf(stderr, "railyard: no panel named %s\n", qPrintable(parser.value(panel)));
            return 2;
        }
        // Shown and raised once the window is laid out (below): shown before, it joins the
        // first layout beside its tab group and the window grows past the size asked for.
    }
    if (windowSize.isValid())
        window.resizeForScreen(windowSize);
    window.show();
    if (roomSize >= 0) // kept for the next start, but not by a --screenshot run
        window.presentation()->setRoom(
            static_cast<railyard::PresentationMode::Room>(roomSize), !shoot);
    if (parser.isSet(presentation))
        window.presentation()->setActive(true);
    if (raised) // tabbed docks take raise() once the window is laid out
        QTimer::singleShot(0, &window, [&window, raised] { window.showPanel(raised); });
    if (watchTarget) {
        window.document()->waitForEvaluation();
        if (!window.collectives()->watch(*watchTarget) && (shoot || parser.isSet(frames))) {
            std::fprintf(stderr, "railyard: --watch: %s\n",
                qPrintable(window.statusBar()->currentMessage()));
            return 1;
        }
    }
    if (parser.isSet(frames)) {
        const QString dir = parser.value(frames);
        QTimer::singleShot(0, &window, [&window, dir] {
            settle(window);
            QString error;
            const bool ok = window.collectives()->exportFrames(dir, 6, &error);
            if (!ok)
                std::fprintf(stderr, "railyard: --frames: %s\n", qPrintable(error));
            QApplication::exit(ok ? 0 : 1);
        });
        return app.exec();
    }
    if (parser.isSet(exportDialog)) {
        window.actions()->showExportDialog();
        window.actions()->exportDialog()->setFormat(exportFormat);
        window.actions()->exportDialog()->refreshPreview();
    }
    if (!shoot) { // once the window is up, so the question has a parent to sit on
        QTimer::singleShot(0, &window, [&window] {
            window.restoreCrashedSession();
            // A first start (a fresh settings folder): what the window shows, what to try.
            window.guide()->showWelcomeIfFirstStart();
        });
    }

    if (shoot) {
        const QString out = parser.value(screenshot);
        QTimer::singleShot(0, &window, [&window, out, raised] {
            settle(window);
            if (raised)
                window.showPanel(raised);
            // As the window opens (presentation mode fits the whole fabric itself).
            if (!window.presentation()->isActive())
                window.fabricView()->fitDefault();
            settle(window);
            // The picture shows the window at rest, not a passing notice over the fabric.
            if (QWidget *notice
                = window.fabricView()->findChild<QWidget *>(QStringLiteral("fabricNotice")))
                notice->hide();
            // The export dialog is a window of its own: it is the picture when it is open.
            QWidget *shown = window.actions()->exportDialog()
                ? static_cast<QWidget *>(window.actions()->exportDialog())
                : static_cast<QWidget *>(&window);
            const bool ok = shown->grab().save(out, "PNG");
            if (!ok)
                std::fprintf(stderr, "railyard: could not write %s\n", qPrintable(out));
            QApplication::exit(ok ? 0 : 1);
        });
    }
    return app.exec();
}
