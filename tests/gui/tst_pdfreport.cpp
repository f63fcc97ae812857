// The PDF report, read back with pdftotext (poppler-utils): several pages, and on them the
// summary figures, the whole bottleneck link name, the per-dimension table, the warnings, the
// notes and snapshots, the fabric's server names, the timeline's whole legend and its
// micro-batch numbers, each chart's title, the bill of materials with its cost and power, and
// nothing shortened with an ellipsis.
#include "chartformat.h"
#include "document/scenariodocument.h"
#include "mainactions.h"
#include "mainwindow.h"
#include "scripteddialogs.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace railyard;

namespace {

/** Also answers the file-name question (ScriptedDialogs leaves it to the base class). */
class PdfDialogs : public ScriptedDialogs
{
public:
    QString saveName;
    QString saveFileName(QWidget *, const QString &, const QString &, const QString &) override { return saveName; }
};

QString pdfText(const QString &path)
{
    QProcess p;
    p.start(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), path, QStringLiteral("-")});
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return QString();
    return QString::fromUtf8(p.readAllStandardOutput());
}

} // namespace

class TestPdfReport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void everythingIsInTheReport();
    void failedWriteLeavesNoFile();
};

void TestPdfReport::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RailyardTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_pdfreport"));
    QSettings().clear();
    QProcess probe;
    probe.start(QStringLiteral("pdftotext"), {QStringLiteral("-v")});
    QVERIFY2(probe.waitForFinished(10000), "pdftotext (poppler-utils, railyard.sh installs it) is missing");
}

void TestPdfReport::everythingIsInTheReport()
{
    QTemporaryDir dir;
    MainWindow window;
    auto owned = std::make_unique<PdfDialogs>();
    PdfDialogs *dialogs = owned.get();
    window.setDialogs(std::move(owned));
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ScenarioDocument *doc = window.document();
    // Scattered: mapping warnings to print, and a bottleneck with a long name.
    QVERIFY(doc->takeSnapshot(QStringLiteral("packed start"), QStringLiteral("2025-06-03T14:32:00")));
    doc->applyPlacement(Placement::Scattered);
    Annotation note;
    note.text = "TP split across servers here";
    note.anchor = {AnnotationAnchor::Kind::Server, 3};
    doc->addAnnotation(note);
    Annotation arrow;
    arrow.kind = Annotation::Kind::Arrow;
    arrow.text = "cross-rail";
    arrow.anchor = {AnnotationAnchor::Kind::Rank, 0};
    arrow.target = {AnnotationAnchor::Kind::Rank, 9};
    doc->addAnnotation(arrow);
    doc->waitForEvaluation();

    dialogs->saveName = dir.filePath(QStringLiteral("report.pdf"));
    QVERIFY(window.actions()->exportPdfReport());
    const QString text = pdfText(dialogs->saveName);
    QVERIFY2(!text.isEmpty(), "pdftotext read nothing");
    const QStringList pages = text.split(QLatin1Char('\f'), Qt::SkipEmptyParts);
    QVERIFY2(pages.size() >= 5, qPrintable(QString::number(pages.size())));

    const CostReport &r = doc->report();
    const CostEngine &engine = doc->engine();
    QStringList expected{QStringLiteral("Summary — seed-128"), QStringLiteral("Iteration"), chartformat::seconds(r.iterationTime),
                         QStringLiteral("MFU"), QStringLiteral("Spine share"), QStringLiteral("Memory / rank"),
                         QStringLiteral("Links p50/95/99"), QStringLiteral("Per parallel dimension"), QStringLiteral("exposed"),
                         QStringLiteral("Warnings"), QStringLiteral("Annotations"), QStringLiteral("note on node003"),
                         QStringLiteral("TP split across servers here"), QStringLiteral("cross-rail"), QStringLiteral("Snapshots"),
                         QStringLiteral("packed start"), QStringLiteral("Fabric — links coloured by predicted utilisation"),
                         QStringLiteral("node000"), QStringLiteral("node015"), QStringLiteral("Pipeline timeline"),
                         QStringLiteral("forward"), QStringLiteral("backward"), QStringLiteral("activation send"),
                         QStringLiteral("gradient send"), QStringLiteral("idle (bubble)"), QStringLiteral("Link utilisation"),
                         QStringLiteral("Bytes per tier and dimension"), QStringLiteral("Exposed communication per dimension"),
                         QStringLiteral("Bubble versus micro-batches"),
                         QString::fromStdString(engine.fabric().linkName(r.bottleneckLink))};
    if (r.iterationTime > r.pipelineMakespan)
        expected << QStringLiteral("gradient sync + optimizer");
    // The bill of materials page (docs/bom-and-cost.md): the seed's 8 rail leaves, the cost and
    // power figures, the illustrative marker.
    expected << QStringLiteral("Bill of materials") << QStringLiteral("leaf switch, 64 x 400G *")
             << QStringLiteral("(* = illustrative") << QStringLiteral("Cost and power")
             << QStringLiteral("Tokens / joule");
    // The per-dimension bytes, compared without spaces: pdftotext reads "0 B" as "0B".
    QStringList bytes;
    for (Dim d : kAllDims)
        bytes << chartformat::bytes(r.dimBytes[static_cast<std::size_t>(index(d))]).remove(QLatin1Char(' '));
    expected << QString::fromStdString(engine.mappingWarnings().front()).left(40);
    // pdftotext -layout keeps a line's words apart by spaces: compare with runs of spaces as one.
    QString flat = text;
    flat.replace(QRegularExpression(QStringLiteral("[ \\t]+")), QStringLiteral(" "));
    for (const QString &s : expected)
        QVERIFY2(flat.contains(s), qPrintable(QStringLiteral("missing: ") + s));
    const QString spaceless = QString(flat).remove(QLatin1Char(' '));
    for (const QString &s : bytes)
        QVERIFY2(spaceless.contains(s), qPrintable(QStringLiteral("missing: ") + s));
    QVERIFY2(!text.contains(QChar(0x2026)), "something was elided with …");
    QVERIFY2(!text.contains(QStringLiteral("....")), "something was cut with ....");

    // The timeline's blocks carry their micro-batch numbers: every one of 0..m-1 on its page.
    const int m = engine.plan().microbatches;
    QString timelinePage;
    for (const QString &page : pages)
        if (page.contains(QStringLiteral("Pipeline timeline")))
            timelinePage = page;
    QVERIFY(!timelinePage.isEmpty());
    for (int i = 0; i < m; ++i)
        QVERIFY2(timelinePage.contains(QRegularExpression(QStringLiteral("\\b%1\\b").arg(i))),
                 qPrintable(QStringLiteral("micro-batch %1 has no number on the timeline").arg(i)));
}

void TestPdfReport::failedWriteLeavesNoFile()
{
    MainWindow window;
    auto owned = std::make_unique<PdfDialogs>();
    PdfDialogs *dialogs = owned.get();
    window.setDialogs(std::move(owned));
    dialogs->saveName = QStringLiteral("/nonexistent-directory/report.pdf");
    QVERIFY(!window.actions()->exportPdfReport());
    QCOMPARE(dialogs->errors.size(), 1);
    QVERIFY(!QFile::exists(dialogs->saveName));
}

QTEST_MAIN(TestPdfReport)
#include "tst_pdfreport.moc"
