#pragma once

#include "fabricfindindex.h"

#include <QFrame>

class QCompleter;
class QLabel;
class QLineEdit;
class QPushButton;
class QStringListModel;
class QToolButton;

namespace railyard {

class FabricView;
class ScenarioDocument;

/**
 * Find (Ctrl+F) over the fabric view's top-right corner: a rank ("12"), coordinates
 * ("(1,0,3)" as (d,p,t), or "d=1 p=0 t=3"), a server, a switch or a link by name, completed
 * from the fabric's names; Enter selects the part and brings it into view (FabricView::focus*).
 * "Go to bottleneck" selects and centres the report's bottleneck link. The name index is built
 * once per fabric (the first time Find opens after the fabric changed), never per keystroke.
 * Esc closes the bar.
 */
class FindBar : public QFrame
{
    Q_OBJECT

public:
    FindBar(ScenarioDocument *document, FabricView *view);

    QLineEdit *lineEdit() const { return m_edit; }
    QCompleter *completer() const { return m_completer; }
    QPushButton *bottleneckButton() const { return m_bottleneck; }
    /// What the last search found or why it found nothing.
    QLabel *messageLabel() const { return m_message; }
    /// The index for the document's fabric now (rebuilt when the fabric changed).
    const FabricFindIndex &index();
    /// How many times the index was built (a test sees it is not rebuilt per search).
    int indexBuilds() const { return m_builds; }

    /// Shows the bar over the view and puts the cursor in the field, its text selected.
    void open();
    /// Goes to what `text` names; false (and the reason in messageLabel()) when nothing.
    bool find(const QString &text);
    /// Selects and centres the report's bottleneck link; false when there is none.
    bool goToBottleneck();

Q_SIGNALS:
    void statusMessage(const QString &message);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    void place();
    void say(const QString &message, bool failed);

    ScenarioDocument *m_document;
    FabricView *m_view;
    FabricFindIndex m_index;
    const void *m_indexedFabric = nullptr; ///< the Fabric the index was built from
    int m_indexedLinks = -1;
    int m_builds = 0;
    QLineEdit *m_edit = nullptr;
    QCompleter *m_completer = nullptr;
    QStringListModel *m_names = nullptr;
    QPushButton *m_bottleneck = nullptr;
    QToolButton *m_close = nullptr;
    QLabel *m_message = nullptr;
};

} // namespace railyard
