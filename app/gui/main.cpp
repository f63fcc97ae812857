// Placeholder until the GUI issue lands.
#include <QApplication>
#include <QLabel>

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QLabel label(QStringLiteral("Railyard"));
    label.show();
    return app.exec();
}
