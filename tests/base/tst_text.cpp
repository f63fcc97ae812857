// The text rules of model/base/text.cpp: which names a file may hold (printable UTF-8, with
// line breaks only in multi-line text), the message that names the offending byte, and the
// escaping of control characters for terminals (ESC, NUL, CR, DEL, C1, U+2028, bytes that are
// not UTF-8), the one function every message and text report goes through.
#include "base/scenarioerror.h"
#include "base/text.h"

#include <QTest>

#include <string>

using namespace railyard;

class TestText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void printable_data();
    void printable();
    void refusalNamesTheByte_data();
    void refusalNamesTheByte();
    void escapeControls_data();
    void escapeControls();
};

void TestText::printable_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("oneLine");
    QTest::addColumn<bool>("multiLine");
    QTest::newRow("plain") << QByteArray("node001.cluster") << true << true;
    QTest::newRow("shell characters") << QByteArray("a'b\"$(x)`y`;&|<>") << true << true;
    QTest::newRow("unicode") << QByteArray("\xc2\xb5s \xe2\x80\x94 \xf0\x9f\x9a\x82") << true
                             << true;
    QTest::newRow("LF") << QByteArray("a\nb") << false << true;
    QTest::newRow("tab") << QByteArray("a\tb") << false << true;
    QTest::newRow("CR LF") << QByteArray("a\r\nb") << false << true;
    QTest::newRow("ESC") << QByteArray("a\x1b[2J") << false << false;
    QTest::newRow("NUL") << QByteArray("a\0b", 3) << false << false;
    QTest::newRow("DEL") << QByteArray("a\x7f") << false << false;
    QTest::newRow("C1 NEL") << QByteArray("a\xc2\x85") << false << false;
    QTest::newRow("lone continuation") << QByteArray("a\x80") << false << false;
    QTest::newRow("overlong slash") << QByteArray("\xc0\xaf") << false << false;
    QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << false << false;
    QTest::newRow("truncated") << QByteArray("\xe2\x80") << false << false;
}

void TestText::printable()
{
    QFETCH(QByteArray, text);
    QFETCH(bool, oneLine);
    QFETCH(bool, multiLine);
    const std::string s = text.toStdString();
    QCOMPARE(isPrintableUtf8(s), oneLine);
    QCOMPARE(isPrintableUtf8(s, true), multiLine);
}

void TestText::refusalNamesTheByte_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("multiLine");
    QTest::addColumn<QString>("message");
    QTest::newRow("LF in a name")
        << QByteArray("n0\ntouch PWNED\n") << false
        << QStringLiteral("fabric.server_names[0]: holds the control character U+000A at byte 2 "
                          "(a name is one line of printable text)");
    QTest::newRow("NUL") << QByteArray("ab\0c", 4) << false
                         << QStringLiteral("fabric.server_names[0]: holds the control character "
                                           "U+0000 at byte 2 (a name is one line of printable "
                                           "text)");
    QTest::newRow("ESC in a description")
        << QByteArray("line\nline\x1b[31m") << true
        << QStringLiteral("fabric.server_names[0]: holds the control character U+001B at byte 9 "
                          "(text may hold tabs and line breaks, no other control characters)");
    QTest::newRow("not UTF-8") << QByteArray("ab\xfe") << false
                               << QStringLiteral("fabric.server_names[0]: holds the byte 0xfe at "
                                                 "byte 2, which is not UTF-8 (a name is one line "
                                                 "of printable text)");
    QTest::newRow("fine") << QByteArray("node 7") << false << QString();
}

void TestText::refusalNamesTheByte()
{
    QFETCH(QByteArray, text);
    QFETCH(bool, multiLine);
    QFETCH(QString, message);
    QString got;
    try {
        requirePrintableUtf8("fabric.server_names[0]", text.toStdString(), multiLine);
    } catch (const ScenarioError &e) {
        got = QString::fromStdString(e.field() + ": " + e.reason());
    }
    QCOMPARE(got, message);
}

void TestText::escapeControls_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("keepLineBreaks");
    QTest::addColumn<QByteArray>("escaped");
    QTest::newRow("plain") << QByteArray("node 7: 3.5 \xc2\xb5s") << false
                           << QByteArray("node 7: 3.5 \xc2\xb5s");
    QTest::newRow("ESC sequence") << QByteArray("a\x1b[2Jb\x1b]0;t\x07") << false
                                  << QByteArray("a\\x1b[2Jb\\x1b]0;t\\x07");
    QTest::newRow("NUL keeps the rest") << QByteArray("host\0 is not a host name", 24) << false
                                        << QByteArray("host\\x00 is not a host name");
    QTest::newRow("CR and LF in a message")
        << QByteArray("a\r\nb") << false << QByteArray("a\\x0d\\x0ab");
    QTest::newRow("report keeps LF and tab")
        << QByteArray("a\n\tb\rc") << true << QByteArray("a\n\tb\\x0dc");
    QTest::newRow("DEL and C1") << QByteArray("a\x7f\xc2\x9b"
                                              "1m")
                                << false << QByteArray("a\\x7f\\u009b1m");
    QTest::newRow("line separator")
        << QByteArray("a\xe2\x80\xa8z") << true << QByteArray("a\\u2028z");
    QTest::newRow("not UTF-8") << QByteArray("a\xff\xc3(") << false << QByteArray("a\\xff\\xc3(");
}

void TestText::escapeControls()
{
    QFETCH(QByteArray, text);
    QFETCH(bool, keepLineBreaks);
    QFETCH(QByteArray, escaped);
    const std::string out = railyard::escapeControls(text.toStdString(), keepLineBreaks);
    QCOMPARE(QByteArray::fromStdString(out), escaped);
    // What is left is printable text (with the kept line breaks).
    QVERIFY(isPrintableUtf8(out, keepLineBreaks));
}

QTEST_GUILESS_MAIN(TestText)
#include "tst_text.moc"
