#pragma once

#include <QSortFilterProxyModel>

#include <vector>

namespace railyard {

/**
 * Filters the rank list by a small query language, all terms must hold:
 * `d=1`, `p=0-3` (a range), `t:2`, `rank=12`, `server=3`, `gpu=5`, `rail=5`, `slot=40`, or any
 * other word as a substring of the row's text (e.g. a server name "node003"). Sorts numerically.
 */
class RankFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit RankFilterModel(QObject *parent = nullptr);

    /// Parses the query; returns false (and filters nothing out) when a term is malformed.
    bool setQuery(const QString &query);
    QString query() const { return m_query; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    /** One `key=a-b` term (column and inclusive range) or a free word (column -1). */
    struct Term
    {
        int column = -1;
        int low = 0;
        int high = 0;
        QString word;
    };
    QString m_query;
    std::vector<Term> m_terms;
};

} // namespace railyard
