#include "rankfiltermodel.h"

#include "ranklistmodel.h"

#include <QRegularExpression>

namespace railyard {

RankFilterModel::RankFilterModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(RankListModel::SortRole);
}

bool RankFilterModel::setQuery(const QString &query)
{
    static const QRegularExpression term(
        QStringLiteral("^(rank|d|p|t|c|e|server|gpu|rail|slot)\\s*[=:]\\s*(\\d+)(?:-(\\d+))?$"));
    static const QStringList keys{QStringLiteral("rank"), QStringLiteral("d"), QStringLiteral("p"),
                                  QStringLiteral("t"), QStringLiteral("c"), QStringLiteral("e"),
                                  QStringLiteral("server"), QStringLiteral("gpu"),
                                  QStringLiteral("rail"), QStringLiteral("slot")};
    std::vector<Term> terms;
    bool ok = true;
    // "d = 1" is one term: glue spaces around = and : first.
    QString q = query.trimmed().toLower();
    q.replace(QRegularExpression(QStringLiteral("\\s*([=:])\\s*")), QStringLiteral("\\1"));
    for (const QString &word : q.split(QRegularExpression(QStringLiteral("[\\s,]+")),
                                       Qt::SkipEmptyParts)) {
        const QRegularExpressionMatch m = term.match(word);
        Term t;
        if (m.hasMatch()) {
            t.column = static_cast<int>(keys.indexOf(m.captured(1)));
            t.low = m.captured(2).toInt();
            t.high = m.captured(3).isEmpty() ? t.low : m.captured(3).toInt();
        } else if (word.contains(QLatin1Char('=')) || word.contains(QLatin1Char(':'))) {
            ok = false;
            continue;
        } else {
            t.word = word;
        }
        terms.push_back(t);
    }
    m_query = query;
    m_terms = std::move(terms);
    invalidateFilter();
    return ok;
}

bool RankFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QAbstractItemModel *model = sourceModel();
    for (const Term &t : m_terms) {
        if (t.column >= 0) {
            const int v = model->index(sourceRow, t.column, sourceParent)
                              .data(RankListModel::SortRole)
                              .toInt();
            if (v < t.low || v > t.high)
                return false;
            continue;
        }
        bool found = false;
        for (int c = 0; c < model->columnCount(sourceParent) && !found; ++c)
            found = model->index(sourceRow, c, sourceParent)
                        .data()
                        .toString()
                        .contains(t.word, Qt::CaseInsensitive);
        if (!found)
            return false;
    }
    return true;
}

bool RankFilterModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const int a = left.data(RankListModel::SortRole).toInt();
    const int b = right.data(RankListModel::SortRole).toInt();
    if (a != b)
        return a < b;
    return left.row() < right.row();
}

} // namespace railyard
