// The document with several jobs (docs/shared-fabric.md, "In the GUI"; document/activejob.h):
// the active job in the top-level fields, switching jobs, a drag refused on another job's GPU,
// a whole-job move and a new job as one undo step each, undo bringing the edited job back, and
// the saved file keeping the first job in the top-level fields.
#include "cost/costenginejobs.h"
#include "document/scenariodocument.h"
#include "scenario/jobssection.h"
#include "scenario/scenariofile.h"

#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <memory>

using namespace railyard;

class TestDocumentJobs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void switchingShowsTheOtherJob();
    void dragOntoAnotherJobIsRefused();
    void undoBringsTheEditedJobBack();
    void moveJobIsOneStep();
    void moveJobRefusedNamesTheJob();
    void addJobIsOneStep();
    void singleJobBecomesTheFirstOfSeveral();

private:
    Scenario m_file;
    std::unique_ptr<ScenarioDocument> m_doc;
};

namespace {

std::vector<int> slotsOf(std::initializer_list<int> servers)
{
    std::vector<int> slots;
    for (const int s : servers)
        for (int g = 0; g < 8; ++g)
            slots.push_back(s * 8 + g);
    return slots;
}

} // namespace

void TestDocumentJobs::init()
{
    m_file = loadScenario(RAILYARD_SOURCE_DIR "/samples/two-jobs.json");
    m_doc = std::make_unique<ScenarioDocument>();
    m_doc->load(m_file);
}

void TestDocumentJobs::switchingShowsTheOtherJob()
{
    ScenarioDocument &doc = *m_doc;
    QCOMPARE(doc.activeJob(), 0);
    QCOMPARE(doc.scenario().slots, slotsOf({ 0, 8 }));
    QCOMPARE(doc.otherJobOfSlot(8), 1); // b's first GPU
    QCOMPARE(doc.otherJobRankOfSlot(9), 1);
    QCOMPARE(doc.otherJobOfSlot(0), -1); // the active job's
    QCOMPARE(doc.otherJobOfSlot(16), -1); // free
    QSignalSpy changed(&doc, &ScenarioDocument::activeJobChanged);
    QCOMPARE(doc.setActiveJob(1), QString());
    QCOMPARE(changed.count(), 1);
    QCOMPARE(doc.scenario().slots, slotsOf({ 1, 9 }));
    QCOMPARE(doc.mapping().slotOf(0), 8);
    QCOMPARE(doc.otherJobOfSlot(0), 0);
    // The report on screen is job b's alone, as evaluate --json's jobs[1].alone_iteration_time_s.
    const SharedFabricReport shared = evaluateJobs(m_file);
    QVERIFY(std::abs(doc.report().iterationTime - shared.jobs[1].aloneIterationTime)
        <= 1e-12 * shared.jobs[1].aloneIterationTime);
    QVERIFY(!doc.isModified()); // a view change, not an edit
    QCOMPARE(doc.fileScenario(), m_file); // the file is what it was
}

void TestDocumentJobs::dragOntoAnotherJobIsRefused()
{
    ScenarioDocument &doc = *m_doc;
    const QString why = doc.moveRefusal({ { 0, 8 } });
    QCOMPARE(why,
        QStringLiteral("slot 8 (server 1 GPU 0) is job \"b\"'s: a job's ranks stay on its own and "
                       "the free GPUs"));
    doc.moveRanks({ { 0, 8 } }, QString());
    QCOMPARE(doc.undoStack()->count(), 0);
    doc.moveRanks({ { 0, 16 } }, QString()); // a free GPU
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.scenario().slots[0], 16);
}

void TestDocumentJobs::undoBringsTheEditedJobBack()
{
    ScenarioDocument &doc = *m_doc;
    doc.moveRanks({ { 0, 16 } }, QString()); // job a's rank 0 to a free GPU
    QCOMPARE(doc.setActiveJob(1), QString());
    // The file form has a's move although b is on show.
    QCOMPARE(doc.fileScenario().jobs[0].slots[0], 16);
    QCOMPARE(doc.fileScenario().slots[0], 16);
    QCOMPARE(doc.fileScenario().jobs[1].slots, slotsOf({ 1, 9 }));
    doc.undoStack()->undo();
    QCOMPARE(doc.activeJob(), 0); // the undone edit was a's: a is on show again
    QCOMPARE(doc.scenario().slots[0], 0);
    QCOMPARE(doc.fileScenario(), m_file);
    doc.undoStack()->redo();
    QCOMPARE(doc.scenario().slots[0], 16);
}

void TestDocumentJobs::moveJobIsOneStep()
{
    ScenarioDocument &doc = *m_doc;
    // b off a's spine links (servers 4 and 12, docs/shared-fabric.md): a runs alone again.
    QCOMPARE(doc.moveJob(1, { 4, 12 }), QString());
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.undoStack()->text(0), QStringLiteral("Move job \"b\" to servers 4, 12"));
    const Scenario moved = doc.fileScenario();
    QCOMPARE(moved.jobs[1].slots, slotsOf({ 4, 12 }));
    QCOMPARE(moved.jobs[1].mappingVersion, m_file.jobs[1].mappingVersion + 1);
    const SharedFabricReport r = evaluateJobs(moved);
    QCOMPARE(r.jobs[0].iterationTime, r.jobs[0].aloneIterationTime);
    QCOMPARE(doc.otherJobOfSlot(32), 1);
    QCOMPARE(doc.otherJobOfSlot(8), -1);
    doc.undoStack()->undo();
    QCOMPARE(doc.fileScenario(), m_file);
    QCOMPARE(doc.otherJobOfSlot(8), 1);
    // The active job moves too: its ranks on screen follow.
    QCOMPARE(doc.moveJob(0, { 2, 3 }), QString());
    QCOMPARE(doc.scenario().slots, slotsOf({ 2, 3 }));
    QCOMPARE(doc.mapping().slotOf(8), 24);
}

void TestDocumentJobs::moveJobRefusedNamesTheJob()
{
    ScenarioDocument &doc = *m_doc;
    QCOMPARE(
        doc.moveJob(1, { 4, 8 }), QStringLiteral("server 8 GPU 0 (slot 64) is taken by job \"a\""));
    QCOMPARE(doc.moveJob(1, { 4 }), QStringLiteral("job \"b\" takes 2 servers: name 2 (got 1)"));
    QCOMPARE(doc.moveJob(1, { 4, 4 }), QStringLiteral("server 4 is listed twice"));
    QCOMPARE(doc.undoStack()->count(), 0);
    QCOMPARE(doc.fileScenario(), m_file);
}

void TestDocumentJobs::addJobIsOneStep()
{
    ScenarioDocument &doc = *m_doc;
    JobSpec c = m_file.jobs[0];
    c.name = "c";
    c.colour = defaultJobColour(2);
    c.slots = slotsOf({ 2, 3 });
    QCOMPARE(doc.addJob(c), QString());
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.undoStack()->text(0), QStringLiteral("Place job \"c\" on servers 2, 3"));
    QCOMPARE(doc.fileScenario().jobs.size(), std::size_t(3));
    QCOMPARE(doc.otherJobOfSlot(16), 2);
    c.name = "d";
    QCOMPARE(doc.addJob(c), QStringLiteral("slot 16 is taken by a running job"));
    doc.undoStack()->undo();
    QCOMPARE(doc.fileScenario(), m_file);
}

void TestDocumentJobs::singleJobBecomesTheFirstOfSeveral()
{
    Scenario single = jobScenario(m_file, 0);
    single.name = "solo";
    ScenarioDocument doc;
    doc.load(single);
    JobSpec c = m_file.jobs[1];
    c.name = "c";
    QCOMPARE(doc.addJob(c), QString());
    const Scenario file = doc.fileScenario();
    QCOMPARE(file.jobs.size(), std::size_t(2));
    QCOMPARE(file.jobs[0].name, std::string("solo"));
    QCOMPARE(file.jobs[0].slots, single.slots);
    QCOMPARE(file.jobs[1].slots, m_file.jobs[1].slots);
    // It saves and reads back as a scenario with two jobs.
    QCOMPARE(parseScenario(scenarioToText(file)).jobs.size(), std::size_t(2));
    doc.undoStack()->undo();
    QVERIFY(doc.scenario().jobs.empty());
}

QTEST_GUILESS_MAIN(TestDocumentJobs)
#include "tst_documentjobs.moc"
