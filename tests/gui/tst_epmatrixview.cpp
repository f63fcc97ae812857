// The EP matrix heat map: cell colours follow the bytes, hover shows them, the summary line
// states skew and spine bytes. Fed a hand-made EpSummary (the view computes nothing).
#include "colorscale.h"
#include "epmatrixview.h"

#include <QHelpEvent>
#include <QImage>
#include <QTest>
#include <QToolTip>

using namespace railyard;

namespace {

/// ep 3, 6 experts, H = (1/2, 3/10, 1/5), S = 1 MB: row i column j = S H_j. Received off-rank
/// bytes 2 S H_j, mean 2 S / 3, so skew = 3/2 with member 0 (rank 40, experts 0-1) hottest.
EpSummary handSummary()
{
    EpSummary s;
    s.present = true;
    s.kind = RoutingKind::Explicit;
    s.ep = 3;
    s.experts = 6;
    s.topK = 2;
    s.groupRanks = { 40, 41, 42 };
    const std::vector<double> h { 0.5, 0.3, 0.2 };
    s.memberShare = h;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            s.matrix.push_back(1e6 * h[static_cast<std::size_t>(j)]);
    s.crossesSpine = { false, true, false, true, false, false, false, false, false };
    s.dispatchBytesPerLayer = 2e6;
    s.skew = 1.5;
    s.hottestMember = 0;
    s.hottestRank = 40;
    s.hottestFirstExpert = 0;
    s.hottestLastExpert = 1;
    s.spineBytes = 7e9;
    s.spineDispatchBytesPerLayer = 0.8e6;
    s.locality = "ep-spans-leaves";
    return s;
}

int lightness(const QImage &image, const QPoint &p)
{
    return image.pixelColor(p).lightness();
}

} // namespace

class TestEpMatrixView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void coloursFollowTheBytes();
    void hoverShowsTheBytes();
    void summaryLine();
    void denseModelShowsANote();
};

void TestEpMatrixView::coloursFollowTheBytes()
{
    EpMatrixView view;
    view.resize(400, 360);
    view.setSummary(handSummary());
    const QImage image = view.grab().toImage();
    // Centres of cells away from the spine dot (top right corner) and the hot-column outline.
    auto centre = [&](int i, int j) { return view.cellRect(i, j).center() + QPoint(-2, 4); };
    // Column 0 (1/2 MB) is darker than column 1 (0.3 MB), darker than column 2 (0.2 MB).
    QVERIFY(lightness(image, centre(1, 0)) < lightness(image, centre(0, 1)));
    QVERIFY(lightness(image, centre(0, 1)) < lightness(image, centre(1, 2)));
    // The largest off-diagonal cell takes the top of the load scale; the diagonal is idle grey.
    QCOMPARE(view.cellColour(1, 0), ColorScale::loadColour(1.0));
    QCOMPARE(view.cellColour(0, 2), ColorScale::loadColour(0.4));
    QCOMPARE(image.pixelColor(centre(2, 2)), ColorScale::idleColour());
    QCOMPARE(image.pixelColor(centre(1, 0)), ColorScale::loadColour(1.0));
}

void TestEpMatrixView::hoverShowsTheBytes()
{
    EpMatrixView view;
    view.resize(400, 360);
    view.setSummary(handSummary());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QPoint pos = view.cellRect(1, 0).center();
    QCOMPARE(view.cellAt(pos), 3);
    QCOMPARE(view.cellAt(QPoint(1, 1)), -1);
    const QString tip = view.cellToolTip(1, 0);
    QVERIFY2(tip.contains(QStringLiteral("r41 e2-3 -> r40 e0-1: 500 kB")), qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("crosses a spine")));
    QVERIFY(!view.cellToolTip(2, 1).contains(QStringLiteral("spine")));
    QVERIFY(view.cellToolTip(0, 0).contains(QStringLiteral("no network")));
    QHelpEvent help(QEvent::ToolTip, pos, view.mapToGlobal(pos));
    QApplication::sendEvent(&view, &help);
    QTRY_COMPARE(QToolTip::text(), tip);
}

void TestEpMatrixView::summaryLine()
{
    EpMatrixView view;
    view.setSummary(handSummary());
    const QString text = view.summaryText();
    QVERIFY2(text.contains(QStringLiteral("skew max/mean 1.5")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("hottest rank 40 (experts 0-1)")));
    QVERIFY(text.contains(QStringLiteral("spine 7 GB/iteration")));
}

void TestEpMatrixView::denseModelShowsANote()
{
    EpMatrixView view;
    view.resize(300, 200);
    view.setSummary(EpSummary {});
    QVERIFY(view.cellRect(0, 0).isEmpty());
    QVERIFY(view.summaryText().contains(QStringLiteral("Dense model")));
    QVERIFY(!view.grab().isNull());
}

QTEST_MAIN(TestEpMatrixView)
#include "tst_epmatrixview.moc"
