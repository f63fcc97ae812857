#pragma once

#include "studies/inference.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace railyard {

/**
 * The inference part of a scenario (prefill and decode pools) as numbers: the Minimal / Distributed
 * classification with the dependencies that cross hosts, the pools (role, servers, degrees, step
 * time, busy share, memory per GPU), the KV bytes per request, the KV transfer time and its path
 * tiers, TTFT / TPOT / end-to-end latency, the KV transfer's critical-path share and the hottest
 * KV link. It shows an InferenceReport handed to setReport() (the app runs evaluateInference());
 * it computes nothing itself.
 */
class InferencePanel : public QWidget
{
    Q_OBJECT

public:
    explicit InferencePanel(QWidget *parent = nullptr);

    /// Shows `report`; the panel keeps a copy.
    void setReport(const InferenceReport &report);
    /// A training-only scenario: shows that there is nothing to show.
    void clear();
    bool hasReport() const { return m_hasReport; }
    const InferenceReport &report() const { return m_report; }

    QLabel *classificationLabel() const { return m_classification; }
    QLabel *reasonsLabel() const { return m_reasons; }
    QLabel *kvLabel() const { return m_kv; }
    QLabel *transferLabel() const { return m_transfer; }
    QLabel *latencyLabel() const { return m_latency; }
    QLabel *shareLabel() const { return m_share; }
    QLabel *hottestLabel() const { return m_hottest; }
    QTableWidget *poolTable() const { return m_pools; }

private:
    InferenceReport m_report;
    bool m_hasReport = false;
    QLabel *m_classification = nullptr;
    QLabel *m_reasons = nullptr;
    QLabel *m_kv = nullptr;
    QLabel *m_transfer = nullptr;
    QLabel *m_latency = nullptr;
    QLabel *m_share = nullptr;
    QLabel *m_hottest = nullptr;
    QLabel *m_warnings = nullptr;
    QTableWidget *m_pools = nullptr;
};

} // namespace railyard
