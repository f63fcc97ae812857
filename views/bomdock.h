#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;
class QTableWidgetItem;

namespace railyard {

class ScenarioDocument;

/**
 * The Bill of Materials dock: the fabric's parts (GPUs, hosts, NICs, switches per tier and
 * model class with their free ports, cables and transceivers per link class, racks) priced
 * with the scenario's parts catalogue, each line's source or its illustrative marker, and the
 * capital, power and $ / kWh per iteration and per million tokens for the job and the fabric.
 * A unit price or unit power edited in the table, Load Catalogue… and Defaults each change the
 * catalogue through the document (ScenarioDocument::setCatalogue: one undo step); the dock
 * re-reads the document's priced bill of materials when it says so. It computes nothing.
 */
class BomDock : public QWidget
{
    Q_OBJECT

public:
    /// Columns of the lines table.
    enum Column {
        ItemColumn,
        QuantityColumn,
        FreePortsColumn,
        PartColumn,
        UnitPriceColumn,
        UnitPowerColumn,
        PriceColumn,
        PowerColumn,
        SourceColumn,
        ColumnCount
    };

    explicit BomDock(ScenarioDocument *doc, QWidget *parent = nullptr);

    QTableWidget *linesTable() const { return m_lines; }
    QTableWidget *figuresTable() const { return m_figures; }
    QLabel *summaryLabel() const { return m_summary; }
    QPushButton *loadButton() const { return m_load; }
    QPushButton *defaultsButton() const { return m_defaults; }

    /// Re-reads the document (the dock does so itself on the document's signals when shown).
    void refresh();

Q_SIGNALS:
    /// Load Catalogue… was pressed: the app asks for the file and loads it.
    void loadRequested();

protected:
    void showEvent(QShowEvent *event) override;

private:
    void onItemChanged(QTableWidgetItem *item);
    void refreshIfShown();

    ScenarioDocument *m_doc = nullptr;
    QLabel *m_summary = nullptr;
    QTableWidget *m_lines = nullptr;
    QTableWidget *m_figures = nullptr;
    QPushButton *m_load = nullptr;
    QPushButton *m_defaults = nullptr;
    bool m_filling = false;
};

} // namespace railyard
