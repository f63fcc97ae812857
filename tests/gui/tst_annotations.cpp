// Whiteboard notes and arrows on the fabric, driven through the real window: a right-click on a
// chip, a server or a cable offers Add Note / Start Arrow / End Arrow; the card is drawn at its
// pin (following a rank when it moves), dragged with the mouse, edited by a double-click,
// recoloured and deleted from its own menu or with Delete, every change one undo step; the PNG
// and SVG exports carry the cards and the labels.
#include "annotationcontroller.h"
#include "annotationlayer.h"
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "fabricview.h"
#include "legenditem.h"
#include "mainwindow.h"
#include "scenario/scenariofile.h"
#include "scripteddialogs.h"
#include "scriptedwindow.h"
#include "slotitem.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QFile>
#include <QImage>
#include <QMenu>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <memory>

using namespace railyard;

namespace {

struct Fixture : ScriptedWindow
{
    Fixture()
        : ScriptedWindow(QSize(1600, 1000))
    {
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        view()->fitAll();
    }
    FabricView *view() const { return window.fabricView(); }
    AnnotationLayer *layer() const { return view()->annotationLayer(); }
    const std::vector<Annotation> &annotations() const { return doc()->scenario().annotations; }

    QPoint chipPos(int rank) const
    {
        SlotItem *chip = view()->rootItem()->slotItemOfRank(rank);
        return chip ? view()->mapFromScene(chip->sceneBoundingRect().center()) : QPoint();
    }
    QPoint serverBarPos(int server) const
    {
        // The server's top edge, inside its frame: its bar, outside any chip.
        const QRectF r = view()->rootItem()->layout().serverRect(server);
        return view()->mapFromScene(
            view()->rootItem()->mapToScene(QPointF(r.center().x(), r.top() + 4.0)));
    }
    /// A right-click at `pos` as the window receives it; the menu it opened.
    QMenu *rightClick(const QPoint &pos) const
    {
        QContextMenuEvent event(
            QContextMenuEvent::Mouse, pos, view()->viewport()->mapToGlobal(pos));
        QApplication::sendEvent(view()->viewport(), &event);
        return qobject_cast<QMenu *>(QApplication::activePopupWidget());
    }
    /// Right-clicks at `pos` and triggers the menu's action `name`; false when it is missing.
    bool choose(const QPoint &pos, const char *name) const
    {
        QMenu *menu = rightClick(pos);
        if (!menu)
            return false;
        QAction *action = menu->findChild<QAction *>(QString::fromLatin1(name));
        menu->close();
        if (!action)
            return false;
        action->trigger();
        return true;
    }
    QPoint cardPos(int card) const
    {
        AnnotationNoteItem *note = layer()->notes().value(card);
        return note ? view()->mapFromScene(note->scenePos()) + QPoint(20, 10) : QPoint();
    }
};

bool hasColour(const QImage &image, const QColor &colour)
{
    for (int y = 0; y < image.height(); ++y) {
        const QRgb *line = reinterpret_cast<const QRgb *>(image.constScanLine(y));
        for (int x = 0; x < image.width(); ++x)
            if ((line[x] & 0xffffff) == (colour.rgb() & 0xffffff))
                return true;
    }
    return false;
}

} // namespace

class TestAnnotations : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void noteOnAChipFollowsTheRank();
    void dragEditRecolourDelete();
    void arrowBetweenServers();
    void noteOnACable();
    void exportsCarryTheMarks();
    void openingShowsTheNotesBelowTheLegend();
};

void TestAnnotations::noteOnAChipFollowsTheRank()
{
    Fixture f;
    f.dialogs->textAnswer = QStringLiteral("TP group 0 stays in this server");
    QVERIFY(f.choose(f.chipPos(3), "actionAddNote"));
    QCOMPARE(f.annotations().size(), std::size_t(1));
    const Annotation &a = f.annotations().front();
    QCOMPARE(a.kind, Annotation::Kind::Note);
    QCOMPARE(a.anchor, (AnnotationAnchor { AnnotationAnchor::Kind::Rank, 3 }));
    QCOMPARE(a.text, std::string("TP group 0 stays in this server"));
    QCOMPARE(f.doc()->undoStack()->count(), 1);
    // One card, pinned to rank 3's chip, wanting the note's offset from it (the view's layout
    // moves it where that would cover text, NoteLayout).
    QCOMPARE(f.layer()->notes().size(), 1);
    AnnotationNoteItem *card = f.layer()->notes().front();
    SlotItem *chip = f.view()->rootItem()->slotItemOfRank(3);
    QCOMPARE(card->pin(), chip->sceneBoundingRect().center());
    QCOMPARE(card->filePos(), card->pin() + QPointF(a.dx, a.dy));
    QCOMPARE(card->text(), QStringLiteral("TP group 0 stays in this server"));
    QCOMPARE(f.view()->annotationAt(f.cardPos(0)), 0);

    // The rank moves to another server: the card goes with it.
    const int other = f.doc()->mapping().rankAt(f.doc()->engine().fabric().gpusPerServer() * 2);
    f.doc()->swapRanks(3, other);
    card = f.layer()->notes().front();
    QCOMPARE(card->pin(), f.view()->rootItem()->slotItemOfRank(3)->sceneBoundingRect().center());
    QVERIFY(card->pin() != chip->sceneBoundingRect().center() || chip->rank() == 3);

    // Undo twice: the swap, then the note.
    f.doc()->undoStack()->undo();
    f.doc()->undoStack()->undo();
    QVERIFY(f.annotations().empty());
    QVERIFY(f.layer()->notes().isEmpty());
    // A cancelled text dialog adds nothing.
    f.dialogs->textAnswer.clear();
    QVERIFY(f.choose(f.chipPos(3), "actionAddNote"));
    QVERIFY(f.annotations().empty());
}

void TestAnnotations::dragEditRecolourDelete()
{
    Fixture f;
    f.dialogs->textAnswer = QStringLiteral("spine hot spot");
    QVERIFY(f.choose(f.serverBarPos(1), "actionAddNote"));
    QCOMPARE(f.annotations().size(), std::size_t(1));
    QCOMPARE(
        f.annotations().front().anchor, (AnnotationAnchor { AnnotationAnchor::Kind::Server, 1 }));
    // Where the card shows (the view's layout may have moved it off its file offset): a drag
    // moves it from there.
    const QPointF shown = f.layer()->notes().front()->scenePos() - f.layer()->notes().front()->pin();
    const double dx0 = shown.x(), dy0 = shown.y();

    // Drag the card 60 px right and 30 px down: one "Move note" edit, in scene units.
    QWidget *vp = f.view()->viewport();
    const QPoint from = f.cardPos(0);
    const double scale = f.view()->transform().m11();
    QTest::mousePress(vp, Qt::LeftButton, {}, from);
    QTest::mouseMove(vp, from + QPoint(20, 10));
    QTest::mouseMove(vp, from + QPoint(60, 30));
    QTest::mouseRelease(vp, Qt::LeftButton, {}, from + QPoint(60, 30));
    QTRY_COMPARE(f.doc()->undoStack()->count(), 2);
    QCOMPARE(f.doc()->undoStack()->undoText(), QStringLiteral("Move note"));
    QVERIFY(std::abs(f.annotations().front().dx - (dx0 + 60.0 / scale)) <= 1.0);
    QVERIFY(std::abs(f.annotations().front().dy - (dy0 + 30.0 / scale)) <= 1.0);
    QVERIFY(f.doc()->isModified());

    // Double-click: new text.
    f.dialogs->textAnswer = QStringLiteral("spine hot spot: 72 %");
    QTest::mouseDClick(vp, Qt::LeftButton, {}, f.cardPos(0));
    QCOMPARE(f.annotations().front().text, std::string("spine hot spot: 72 %"));
    QCOMPARE(f.layer()->notes().front()->text(), QStringLiteral("spine hot spot: 72 %"));

    // Its own menu: recolour, then delete; Ctrl+Z brings it back.
    QVERIFY(f.choose(f.cardPos(0), "actionNoteColour_Pink"));
    QCOMPARE(f.annotations().front().colour, std::string("pink"));
    QCOMPARE(f.layer()->notes().front()->paper(), QColor(0xfc, 0xd0, 0xe4));
    QVERIFY(f.choose(f.cardPos(0), "actionDeleteAnnotation"));
    QVERIFY(f.annotations().empty());
    f.doc()->undoStack()->undo();
    QCOMPARE(f.annotations().size(), std::size_t(1));

    // Selected, Delete removes it.
    f.layer()->notes().front()->setSelected(true);
    f.view()->setFocus();
    QTest::keyClick(f.view(), Qt::Key_Delete);
    QVERIFY(f.annotations().empty());
    f.doc()->undoStack()->undo();
    QCOMPARE(f.annotations().front().text, std::string("spine hot spot: 72 %"));
}

void TestAnnotations::arrowBetweenServers()
{
    Fixture f;
    QVERIFY(f.choose(f.serverBarPos(0), "actionStartArrow"));
    QVERIFY(f.window.annotations()->hasPendingArrow());
    QCOMPARE(f.doc()->undoStack()->count(), 0); // nothing until the end is chosen
    // The same server offers no end; another does.
    QMenu *same = f.rightClick(f.serverBarPos(0));
    QVERIFY(same && !same->findChild<QAction *>(QStringLiteral("actionEndArrow")));
    same->close();
    f.dialogs->textAnswer = QStringLiteral("DP ring");
    QVERIFY(f.choose(f.serverBarPos(2), "actionEndArrow"));
    QVERIFY(!f.window.annotations()->hasPendingArrow());
    QCOMPARE(f.annotations().size(), std::size_t(1));
    const Annotation &a = f.annotations().front();
    QCOMPARE(a.kind, Annotation::Kind::Arrow);
    QCOMPARE(a.anchor, (AnnotationAnchor { AnnotationAnchor::Kind::Server, 0 }));
    QCOMPARE(a.target, (AnnotationAnchor { AnnotationAnchor::Kind::Server, 2 }));
    QCOMPARE(a.text, std::string("DP ring"));
    // Hit-testing follows the drawn line: its middle is the arrow, far from it nothing.
    const QPointF tail = *f.layer()->pinPosition(a.anchor);
    const QPointF head = *f.layer()->pinPosition(a.target);
    QCOMPARE(f.view()->annotationAt(f.view()->mapFromScene((tail + head) / 2.0)), 0);
    const QLineF normal = QLineF(f.view()->mapFromScene(tail), f.view()->mapFromScene(head))
                              .normalVector()
                              .unitVector();
    const QPointF away = 40.0 * QPointF(normal.dx(), normal.dy());
    QCOMPARE(
        f.view()->annotationAt(f.view()->mapFromScene((tail + head) / 2.0) + away.toPoint()), -1);
    // Its label is edited from its menu.
    f.dialogs->textAnswer = QStringLiteral("DP ring, rail 0");
    QVERIFY(f.choose(f.view()->mapFromScene((tail + head) / 2.0), "actionEditAnnotation"));
    QCOMPARE(f.annotations().front().text, std::string("DP ring, rail 0"));
}

void TestAnnotations::noteOnACable()
{
    Fixture f;
    // A NIC <-> rail-leaf cable: the menu on the cable pins the note to its link.
    const Fabric &fabric = f.doc()->engine().fabric();
    const FabricLayout &layout = f.view()->rootItem()->layout();
    int cable = -1;
    QPoint at;
    for (int link = 0; link < fabric.linkCount() && cable < 0; link += 2) {
        const QPolygonF &path = layout.cablePath(link >> 1);
        if (path.size() < 2)
            continue;
        const QPoint p = f.view()->mapFromScene(
            f.view()->rootItem()->mapToScene(QLineF(path[0], path[1]).pointAt(0.5)));
        if (!f.view()->viewport()->rect().contains(p))
            continue;
        QMenu *menu = f.rightClick(p);
        if (menu && menu->findChild<QAction *>(QStringLiteral("actionAddNote"))
            && !menu->findChild<QAction *>(QStringLiteral("actionFailServer"))) {
            cable = link >> 1;
            at = p;
        }
        if (menu)
            menu->close();
    }
    QVERIFY(cable >= 0);
    f.dialogs->textAnswer = QStringLiteral("this cable");
    QVERIFY(f.choose(at, "actionAddNote"));
    QCOMPARE(f.annotations().size(), std::size_t(1));
    QCOMPARE(f.annotations().front().anchor.kind, AnnotationAnchor::Kind::Link);
    QCOMPARE(f.annotations().front().anchor.index >> 1, cable);
    QCOMPARE(f.layer()->notes().size(), 1);
}

void TestAnnotations::exportsCarryTheMarks()
{
    Fixture f;
    Annotation note;
    note.anchor = { AnnotationAnchor::Kind::Server, 0 };
    note.text = "look here";
    note.colour = "green";
    f.doc()->addAnnotation(note);
    Annotation arrow;
    arrow.kind = Annotation::Kind::Arrow;
    arrow.anchor = { AnnotationAnchor::Kind::Server, 0 };
    arrow.target = { AnnotationAnchor::Kind::Server, 3 };
    arrow.text = "cross-rail swap";
    f.doc()->addAnnotation(arrow);

    // On screen: the card's paper and the arrow's blue in the view.
    const QImage shot = f.view()->viewport()->grab().toImage();
    QVERIFY(hasColour(shot, f.layer()->notes().front()->paper()));
    QVERIFY(hasColour(shot, QColor(0x1c, 0x4e, 0xd8)));
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("fabric.png"));
    QVERIFY(f.view()->exportImage(png));
    const QImage image(png);
    QVERIFY(!image.isNull());
    // The green card's paper and the arrow's blue are in the picture.
    QVERIFY(hasColour(image, f.layer()->notes().front()->paper()));
    QVERIFY(hasColour(image, QColor(0x1c, 0x4e, 0xd8)));

    const QString svg = dir.filePath(QStringLiteral("fabric.svg"));
    QVERIFY(f.view()->exportImage(svg));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY(text.contains("look here"));
    QVERIFY(text.contains("cross-rail swap"));
}

QTEST_MAIN(TestAnnotations)
void TestAnnotations::openingShowsTheNotesBelowTheLegend()
{
    // The whiteboard sample's notes are pinned over the leaves; at 1280x720 the default fit
    // (what opening a file does) shows each card whole, inside the viewport and clear of the
    // legend, with a server row still in view.
    ScriptedWindow w(QSize(1280, 720));
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    w.doc()->load(loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128-whiteboard.json"));
    QCoreApplication::processEvents();
    FabricView *view = w.window.fabricView();
    view->fitDefault();
    QCoreApplication::processEvents();
    const auto onScreen = [view](const QGraphicsItem *item) {
        return view->mapFromScene(item->mapToScene(item->boundingRect())).boundingRect();
    };
    // Cards keep their size on screen: their view rectangle is their bounding box at the pin.
    const auto cardOnScreen = [view](const AnnotationNoteItem *note) {
        return QRectF(view->mapFromScene(note->scenePos()), note->boundingRect().size())
            .translated(note->boundingRect().topLeft())
            .toAlignedRect();
    };
    const LegendItem *key = view->legendItem(); // also at screen size
    const QRect legend = QRectF(view->mapFromScene(key->scenePos()), key->boundingRect().size())
                             .translated(key->boundingRect().topLeft())
                             .toAlignedRect();
    const QList<AnnotationNoteItem *> notes = view->annotationLayer()->notes();
    QVERIFY(notes.size() >= 2);
    for (const AnnotationNoteItem *note : notes) {
        const QRect card = cardOnScreen(note);
        QVERIFY2(view->viewport()->rect().contains(card.center()), qPrintable(note->text()));
        QVERIFY2(!card.intersects(legend), qPrintable(note->text()));
    }
    // A server row is still in view under them.
    const QRect server = onScreen(view->rootItem()->slotItemOfRank(0)->parentItem());
    QVERIFY(view->viewport()->rect().intersects(server));
}

#include "tst_annotations.moc"
